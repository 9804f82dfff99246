/* SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the gazeprivacy developers
 *
 * DPGazeSynth's deterministic per-window passes, compiled (dpgazesynth/kernel.py loads it):
 *
 *   windows()  the client windows of grid.client_windows: missing="fill" within each window,
 *              cells (off-screen points to the nearest cell), windows and runs of equal cells;
 *   runs()     the run lengths of client.release_run_lengths after the Laplace draws: the
 *              noisy series (zero padding in sound mode), clip at 0, scale to W_v, largest-
 *              remainder rounding (ties in index order), zero runs dropped;
 *   synth()    the Markov steps and output rows of synthesis._synthesise after its draws.
 *
 * Why hand-written C: the numpy path makes about ten passes over the samples with as many
 * temporaries (about 1.5 GB allocated and first-touched in a whole `protect` of 5.4 M samples),
 * which cost more than the arithmetic; each function here is one pass over the samples or the
 * runs writing only its outputs. No library implements DPGazeSynth (see kaleido's loop for why
 * not numba).
 *
 * Every random draw stays in numpy, in the same generators and order; these functions only do
 * the deterministic arithmetic, with the same IEEE operations in the same order as the numpy
 * path (compiled with -ffp-contract=off: no fused multiply-add), so the release is bit-identical
 * (tests/mechanisms/samples/test_dpgazesynth_compiled.py).
 *
 * Only the CPython C API and the buffer protocol are used (no numpy headers).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Direction k of the 8-neighbourhood (grid.py's _DCOL, _DROW) */
static const int64_t DCOL[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const int64_t DROW[8] = {0, 1, 1, 1, 0, -1, -1, -1};

/* a C-contiguous buffer of 8-byte items of kind 'd' (float64) or 'q' (int64) */
static int
get_buf(PyObject *o, Py_buffer *b, int writable, char kind, const char *name)
{
    int flags = PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, b, flags) < 0) {
        b->obj = NULL;
        return -1;
    }
    const char *f = b->format != NULL ? b->format : "B";
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    int ok = kind == 'd' ? strcmp(f, "d") == 0
                         : (strcmp(f, "q") == 0 || (strcmp(f, "l") == 0 && sizeof(long) == 8));
    if (!ok || b->itemsize != 8 || b->len % 8 != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a contiguous %s buffer, got format %s", name,
                     kind == 'd' ? "float64" : "int64", b->format ? b->format : "B");
        PyBuffer_Release(b);
        b->obj = NULL;
        return -1;
    }
    return 0;
}

#define MAXB 16
typedef struct {
    Py_buffer b[MAXB];
    int n;
} Bufs;

/* the next buffer of bs (released by bufs_release); NULL with an exception */
static void *
take(Bufs *bs, PyObject *o, int writable, char kind, const char *name, Py_ssize_t want)
{
    Py_buffer *b = &bs->b[bs->n];
    if (get_buf(o, b, writable, kind, name) < 0)
        return NULL;
    bs->n++;
    if (want >= 0 && b->len / 8 < want) {
        PyErr_Format(PyExc_ValueError, "%s: expected at least %zd items, got %zd", name, want,
                     b->len / 8);
        return NULL;
    }
    return b->buf;
}

static void
bufs_release(Bufs *bs)
{
    for (int i = 0; i < bs->n; i++)
        PyBuffer_Release(&bs->b[i]);
    bs->n = 0;
}

static Py_ssize_t
len8(Bufs *bs)
{
    return bs->b[bs->n - 1].len / 8;
}

/* the column (or row) of a coordinate: floor((v - v0) / c) clipped to [0, g - 1] */
static int64_t
cell_of(double v, double v0, double c, int64_t g)
{
    double k = floor((v - v0) / c);
    double hi = (double)(g - 1);
    k = k < 0.0 ? 0.0 : (k > hi ? hi : k);
    return (int64_t)k;
}

typedef struct {   /* the outputs of windows() and how far they are filled */
    int64_t *valid_rows, *n_valid, *run_window, *run_length, *run_cell, *run_col, *run_row;
    double *start_x, *start_y;
    Py_ssize_t nv, nr;
} WinOut;

typedef struct {   /* one recording: its samples and public parameters */
    const double *x, *y;
    Py_ssize_t n, w;
    int64_t row0, win0, g;
    double x0, y0, cw, ch, cx, cy;
    int fill;
} Rec;

/* one window [a, e) of a recording into o: filled, cut into runs; -1 on a half-missing row */
static int
one_window(const Rec *r, Py_ssize_t a, Py_ssize_t e, WinOut *o)
{
    int64_t win = r->win0 + a / r->w, nv = 0, prev = -1;
    Py_ssize_t first = -1;
    if (r->fill)
        for (Py_ssize_t j = a; j < e && first < 0; j++)
            if (!isnan(r->x[j]))
                first = j;
    double lx = 0.0, ly = 0.0;
    int have = 0;
    o->start_x[win] = o->start_y[win] = 0.0;
    for (Py_ssize_t j = a; j < e; j++) {
        double vx = r->x[j], vy = r->y[j];
        if (isnan(vx)) {
            if (!r->fill)
                continue;
            if (have) {          /* the previous valid sample of the window */
                vx = lx;
                vy = ly;
            }
            else if (first >= 0) {  /* before the first valid one: the first valid one */
                vx = r->x[first];
                vy = r->y[first];
            }
            else {               /* no valid sample: the screen centre (public) */
                vx = r->cx;
                vy = r->cy;
            }
        }
        else {
            lx = vx;
            ly = vy;
            have = 1;
        }
        if (isnan(vy))
            return -1;
        o->valid_rows[o->nv++] = r->row0 + j;
        int64_t col = cell_of(vx, r->x0, r->cw, r->g), row = cell_of(vy, r->y0, r->ch, r->g);
        int64_t cell = row * r->g + col;
        if (nv == 0) {
            o->start_x[win] = vx;
            o->start_y[win] = vy;
        }
        if (nv == 0 || cell != prev) {
            o->run_window[o->nr] = win;
            o->run_length[o->nr] = 1;
            o->run_cell[o->nr] = cell;
            o->run_col[o->nr] = col;
            o->run_row[o->nr] = row;
            o->nr++;
        }
        else
            o->run_length[o->nr - 1]++;
        prev = cell;
        nv++;
    }
    o->n_valid[win] = nv;
    return 0;
}

PyDoc_STRVAR(windows_doc,
"windows(xs, ys, params, g, fill, valid_rows, n_valid, start_x, start_y, run_window,\n"
"        run_length, run_cell, run_col, run_row)\n--\n\n"
"grid.client_windows' pass over the samples. xs, ys: per recording float64 arrays (NaN:\n"
"missing); params: per recording (W, first window index, x0, y0, cell width, cell height,\n"
"centre x, centre y); g: grid size; fill: missing='fill'. Writes the valid rows, per window\n"
"the valid count and first valid sample, per run its window, length, cell, column and row\n"
"(outputs sized for the worst case) and returns (valid rows, runs) written.");

static PyObject *
windows(PyObject *self, PyObject *args)
{
    PyObject *xs, *ys, *params, *o[9];
    long long g;
    int fill;
    if (!PyArg_ParseTuple(args, "OOOLpOOOOOOOOO:windows", &xs, &ys, &params, &g, &fill, &o[0],
                          &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8]))
        return NULL;
    if (!PyList_Check(xs) || !PyList_Check(ys) || !PyList_Check(params)
        || PyList_GET_SIZE(ys) != PyList_GET_SIZE(xs)
        || PyList_GET_SIZE(params) != PyList_GET_SIZE(xs) || g < 1) {
        PyErr_SetString(PyExc_ValueError, "xs, ys, params: lists of one length; g >= 1");
        return NULL;
    }
    Bufs bs = {.n = 0};
    WinOut out = {0};
    int64_t **ints[] = {&out.valid_rows, &out.n_valid};
    for (int i = 0; i < 2; i++)
        if ((*ints[i] = take(&bs, o[i], 1, 'q', "windows output", -1)) == NULL)
            goto fail;
    Py_ssize_t cap = bs.b[0].len / 8, n_win = bs.b[1].len / 8;
    if ((out.start_x = take(&bs, o[2], 1, 'd', "start_x", n_win)) == NULL
        || (out.start_y = take(&bs, o[3], 1, 'd', "start_y", n_win)) == NULL)
        goto fail;
    int64_t **runs[] = {&out.run_window, &out.run_length, &out.run_cell, &out.run_col,
                        &out.run_row};
    for (int i = 0; i < 5; i++)
        if ((*runs[i] = take(&bs, o[4 + i], 1, 'q', "run output", cap)) == NULL)
            goto fail;
    int64_t row0 = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(xs); k++) {
        Rec r = {.g = g, .fill = fill, .row0 = row0};
        Py_ssize_t w = 0;
        long long win0 = 0;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(params, k), "nLdddddd", &w, &win0, &r.x0, &r.y0,
                              &r.cw, &r.ch, &r.cx, &r.cy))
            goto fail;
        r.w = w;
        r.win0 = win0;
        if ((r.x = take(&bs, PyList_GET_ITEM(xs, k), 0, 'd', "x", -1)) == NULL)
            goto fail;
        r.n = len8(&bs);
        if ((r.y = take(&bs, PyList_GET_ITEM(ys, k), 0, 'd', "y", r.n)) == NULL)
            goto fail;
        if (r.w < 1 || row0 + r.n > cap || r.win0 < 0 || r.win0 + (r.n + r.w - 1) / r.w > n_win) {
            PyErr_SetString(PyExc_ValueError, "windows: W < 1 or outputs too small");
            goto fail;
        }
        for (Py_ssize_t a = 0; a < r.n; a += r.w)
            if (one_window(&r, a, a + r.w < r.n ? a + r.w : r.n, &out) < 0) {
                PyErr_SetString(PyExc_ValueError, "a sample has x but no y (both or neither "
                                "must be NaN)");
                goto fail;
            }
        row0 += r.n;
        bs.n -= 2;  /* x and y of this recording: released now */
        PyBuffer_Release(&bs.b[bs.n]);
        PyBuffer_Release(&bs.b[bs.n + 1]);
    }
    bufs_release(&bs);
    return Py_BuildValue("(nn)", out.nv, out.nr);
fail:
    bufs_release(&bs);
    return NULL;
}

/* entries of one group for the rounding: remainder and position */
typedef struct {
    double rem;
    Py_ssize_t i;
} Rem;

/* does a come before b? Largest remainder first, ties in index order (numpy's stable argsort of
 * -rem) */
static inline int
rem_before(const Rem *a, const Rem *b)
{
    return a->rem > b->rem || (a->rem == b->rem && a->i < b->i);
}

static void
insertion_sort(Rem *r, Py_ssize_t n)
{
    for (Py_ssize_t j = 1; j < n; j++) {
        Rem key = r[j];
        Py_ssize_t i = j - 1;
        for (; i >= 0 && rem_before(&key, &r[i]); i--)
            r[i + 1] = r[i];
        r[i + 1] = key;
    }
}

/* reorder r[0..m) so that r[0..k) are its first k entries in rem_before's order (in any
 * order among themselves), 0 < k < m: Hoare's selection, insertion sort on short ranges */
static void
select_first(Rem *r, Py_ssize_t m, Py_ssize_t k)
{
    Py_ssize_t lo = 0, hi = m - 1;
    while (hi - lo >= 16) {
        Rem pivot = r[lo + (hi - lo) / 2];
        Py_ssize_t i = lo, j = hi;
        while (i <= j) {
            while (rem_before(&r[i], &pivot))
                i++;
            while (rem_before(&pivot, &r[j]))
                j--;
            if (i <= j) {
                Rem tmp = r[i];
                r[i++] = r[j];
                r[j--] = tmp;
            }
        }
        /* r[lo..j] come before r[i..hi]; between them (if any): the pivot, in place */
        if (k - 1 <= j)
            hi = j;
        else if (k - 1 >= i)
            lo = i;
        else
            return;
    }
    insertion_sort(r + lo, hi - lo + 1);
}

/* grid._round_keep_sum_block for one group v[0..n) with total: into fl (the rounded values).
 * rk (n entries) holds the positive remainders from the front, the positions of the zero ones
 * from the back (they sort after every positive one, in index order: never sorted). */
static void
round_group(double *v, Py_ssize_t n, int64_t total, double *fl, Rem *rk)
{
    double s = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        v[i] = v[i] < 0.0 ? 0.0 : v[i];  /* clip at 0 */
        s += v[i];
    }
    if (s <= 0.0 && total > 0) {  /* all zero: the whole total on the first entry */
        v[0] = 1.0;
        s = 1.0;
    }
    double q = (double)total / (s > 0.0 ? s : 1.0), sum_fl = 0.0;
    Py_ssize_t m = 0, z = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        double scaled = v[i] * q;
        fl[i] = floor(scaled);
        sum_fl += fl[i];
        double rem = scaled - fl[i];
        Rem *slot = rem > 0.0 ? &rk[m++] : &rk[--z];
        slot->rem = rem;
        slot->i = i;
    }
    double d = nearbyint((double)total - sum_fl);  /* np.rint: half to even */
    if (d <= 0.0)
        return;
    Py_ssize_t up = d >= (double)n ? n : (Py_ssize_t)d;
    if (up < m)  /* only then does the order of the positive remainders matter */
        select_first(rk, m, up);
    for (Py_ssize_t k = 0; k < up; k++)  /* positive remainders, then zero ones in order */
        fl[k < m ? rk[k].i : rk[n - 1 - (k - m)].i] += 1.0;
}

PyDoc_STRVAR(runs_doc,
"runs(run_window, run_length, n_valid, noise, scale, sound, out_window, out_length)\n--\n\n"
"client.release_run_lengths after its Laplace draws (noise: one per entry of the series, in\n"
"order): per window the series (its run lengths, then zeros up to W_v in sound mode) plus\n"
"noise x scale[window], clipped at 0, scaled to W_v, rounded by largest remainder; writes the\n"
"window and length of every positive run and returns how many.");

static PyObject *
runs(PyObject *self, PyObject *args)
{
    PyObject *o[7];
    int sound;
    if (!PyArg_ParseTuple(args, "OOOOOpOO:runs", &o[0], &o[1], &o[2], &o[3], &o[4], &sound,
                          &o[5], &o[6]))
        return NULL;
    Bufs bs = {.n = 0};
    double *v = NULL, *fl = NULL;
    Rem *rk = NULL;
    const int64_t *rw = take(&bs, o[0], 0, 'q', "run_window", -1);
    Py_ssize_t nr = rw ? len8(&bs) : 0;
    const int64_t *rl = rw ? take(&bs, o[1], 0, 'q', "run_length", nr) : NULL;
    const int64_t *nv = rl ? take(&bs, o[2], 0, 'q', "n_valid", -1) : NULL;
    Py_ssize_t n_win = nv ? len8(&bs) : 0;
    const double *noise = nv ? take(&bs, o[3], 0, 'd', "noise", -1) : NULL;
    Py_ssize_t n_noise = noise ? len8(&bs) : 0;
    const double *scale = noise ? take(&bs, o[4], 0, 'd', "scale", n_win) : NULL;
    int64_t *ow = scale ? take(&bs, o[5], 1, 'q', "out_window", n_noise) : NULL;
    int64_t *ol = ow ? take(&bs, o[6], 1, 'q', "out_length", n_noise) : NULL;
    if (ol == NULL)
        goto fail;
    Py_ssize_t longest = 1;
    for (Py_ssize_t w = 0; w < n_win; w++)
        longest = nv[w] > longest ? nv[w] : longest;
    if (!sound)
        longest = longest > nr ? longest : nr;  /* runs of a window <= its valid rows */
    v = PyMem_Malloc(longest * sizeof(double));
    fl = PyMem_Malloc(longest * sizeof(double));
    rk = PyMem_Malloc(longest * sizeof(Rem));
    if (v == NULL || fl == NULL || rk == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t k = 0, t = 0, out = 0;
    for (int64_t w = 0; w < n_win; w++) {
        Py_ssize_t k0 = k;
        while (k < nr && rw[k] == w)
            k++;
        Py_ssize_t n = sound ? nv[w] : k - k0;
        if ((k < nr && rw[k] < w) || k - k0 > n || t + n > n_noise) {
            PyErr_SetString(PyExc_ValueError, "runs: run_window not sorted, more runs than "
                            "valid rows, or too little noise");
            goto fail;
        }
        for (Py_ssize_t i = 0; i < n; i++)  /* the series plus its noise */
            v[i] = (i < k - k0 ? (double)rl[k0 + i] : 0.0) + noise[t + i] * scale[w];
        t += n;
        if (n == 0)
            continue;
        round_group(v, n, nv[w], fl, rk);
        for (Py_ssize_t i = 0; i < n; i++)
            if (fl[i] > 0.0) {
                ow[out] = w;
                ol[out++] = (int64_t)fl[i];
            }
    }
    if (k != nr || t != n_noise) {
        PyErr_SetString(PyExc_ValueError, "runs: the noise does not match the series");
        goto fail;
    }
    PyMem_Free(v);
    PyMem_Free(fl);
    PyMem_Free(rk);
    bufs_release(&bs);
    return PyLong_FromSsize_t(out);
fail:
    PyMem_Free(v);
    PyMem_Free(fl);
    PyMem_Free(rk);
    bufs_release(&bs);
    return NULL;
}

PyDoc_STRVAR(round_doc,
"round_keep_sum(values, group, totals, out)\n--\n\n"
"grid._round_keep_sum (group sorted): writes the rounded values into out (int64).");

static PyObject *
round_keep_sum(PyObject *self, PyObject *args)
{
    PyObject *o[4];
    if (!PyArg_ParseTuple(args, "OOOO:round_keep_sum", &o[0], &o[1], &o[2], &o[3]))
        return NULL;
    Bufs bs = {.n = 0};
    double *v = NULL, *fl = NULL;
    Rem *rk = NULL;
    const double *val = take(&bs, o[0], 0, 'd', "values", -1);
    Py_ssize_t n = val ? len8(&bs) : 0;
    const int64_t *grp = val ? take(&bs, o[1], 0, 'q', "group", n) : NULL;
    const int64_t *tot = grp ? take(&bs, o[2], 0, 'q', "totals", -1) : NULL;
    Py_ssize_t n_groups = tot ? len8(&bs) : 0;
    int64_t *out = tot ? take(&bs, o[3], 1, 'q', "out", n) : NULL;
    if (out == NULL)
        goto fail;
    v = PyMem_Malloc((n + 1) * sizeof(double));
    fl = PyMem_Malloc((n + 1) * sizeof(double));
    rk = PyMem_Malloc((n + 1) * sizeof(Rem));
    if (v == NULL || fl == NULL || rk == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t a = 0, e; a < n; a = e) {
        for (e = a + 1; e < n && grp[e] == grp[a]; e++)
            ;
        if (grp[a] < 0 || grp[a] >= n_groups || (e < n && grp[e] < grp[a])) {
            PyErr_SetString(PyExc_ValueError, "round_keep_sum: group not sorted or outside "
                            "totals");
            goto fail;
        }
        memcpy(v, val + a, (e - a) * sizeof(double));
        round_group(v, e - a, tot[grp[a]], fl, rk);
        for (Py_ssize_t i = a; i < e; i++)
            out[i] = (int64_t)fl[i - a];
    }
    PyMem_Free(v);
    PyMem_Free(fl);
    PyMem_Free(rk);
    bufs_release(&bs);
    Py_RETURN_NONE;
fail:
    PyMem_Free(v);
    PyMem_Free(fl);
    PyMem_Free(rk);
    bufs_release(&bs);
    return NULL;
}

PyDoc_STRVAR(synth_doc,
"synth(run_window, run_length, start_cell, cumulative, u, rx, ry, x0, y0, cw, ch,\n"
"      valid_rows, g, out_x, out_y)\n--\n\n"
"synthesis._synthesise after its draws (u, rx, ry: one per run): the Markov chain of cells\n"
"over each window's runs from its start cell, each run's point (x0 + (col + rx) * cw, ...)\n"
"repeated over its length into out_x, out_y at valid_rows; NaN elsewhere.");

static PyObject *
synth(PyObject *self, PyObject *args)
{
    PyObject *o[14];
    long long g;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOLOO:synth", &o[0], &o[1], &o[2], &o[3], &o[4],
                          &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &g, &o[12],
                          &o[13]))
        return NULL;
    Bufs bs = {.n = 0};
    const int64_t *win = take(&bs, o[0], 0, 'q', "run_window", -1);
    Py_ssize_t m = win ? len8(&bs) : 0;
    const int64_t *len = win ? take(&bs, o[1], 0, 'q', "run_length", m) : NULL;
    const int64_t *start = len ? take(&bs, o[2], 0, 'q', "start_cell", -1) : NULL;
    Py_ssize_t n_win = start ? len8(&bs) : 0;
    const double *cum = start ? take(&bs, o[3], 0, 'd', "cumulative", -1) : NULL;
    Py_ssize_t n_cells = cum ? len8(&bs) / 8 : 0;
    const double *u = cum ? take(&bs, o[4], 0, 'd', "u", m) : NULL;
    const double *rx = u ? take(&bs, o[5], 0, 'd', "rx", m) : NULL;
    const double *ry = rx ? take(&bs, o[6], 0, 'd', "ry", m) : NULL;
    const double *pub[4] = {NULL};
    for (int i = 0; i < 4 && ry; i++)
        if ((pub[i] = take(&bs, o[7 + i], 0, 'd', "window bounds", n_win)) == NULL)
            break;
    const int64_t *rows = pub[3] ? take(&bs, o[11], 0, 'q', "valid_rows", -1) : NULL;
    Py_ssize_t n_valid = rows ? len8(&bs) : 0;
    double *ox = rows ? take(&bs, o[12], 1, 'd', "out_x", -1) : NULL;
    Py_ssize_t n_rows = ox ? len8(&bs) : 0;
    double *oy = ox ? take(&bs, o[13], 1, 'd', "out_y", n_rows) : NULL;
    if (oy == NULL)
        goto fail;
    for (Py_ssize_t j = 0; j < n_rows; j++)
        ox[j] = oy[j] = NAN;
    int64_t cell = 0;
    Py_ssize_t pos = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        int64_t w = win[k];
        if (w < 0 || w >= n_win || (k > 0 && w < win[k - 1]))
            goto bad;
        if (k == 0 || w != win[k - 1])
            cell = start[w];  /* the window's first run: its start cell */
        else {                /* one Markov step from the previous run's cell */
            if (cell < 0 || cell >= n_cells)
                goto bad;
            const double *c = cum + cell * 8;
            int d = 0;
            for (int i = 0; i < 8; i++)
                d += u[k] >= c[i];
            if (d > 7)
                goto bad;
            cell = cell + DROW[d] * g + DCOL[d];
        }
        int64_t col = cell % g, row = cell / g;  /* Python's floor division and modulo */
        if (col < 0) {
            col += g;
            row -= 1;
        }
        double px = pub[0][w] + ((double)col + rx[k]) * pub[2][w];
        double py = pub[1][w] + ((double)row + ry[k]) * pub[3][w];
        if (len[k] < 0 || pos + len[k] > n_valid)
            goto bad;
        for (int64_t i = 0; i < len[k]; i++, pos++) {
            int64_t j = rows[pos];
            if (j < 0 || j >= n_rows)
                goto bad;
            ox[j] = px;
            oy[j] = py;
        }
    }
    if (pos != n_valid)
        goto bad;
    bufs_release(&bs);
    Py_RETURN_NONE;
bad:
    PyErr_SetString(PyExc_ValueError, "synth: runs not sorted by window, a cell off the grid, "
                    "a transition row not summing to 1, or run lengths not matching the rows");
fail:
    bufs_release(&bs);
    return NULL;
}

static PyMethodDef methods[] = {
    {"windows", windows, METH_VARARGS, windows_doc},
    {"runs", runs, METH_VARARGS, runs_doc},
    {"round_keep_sum", round_keep_sum, METH_VARARGS, round_doc},
    {"synth", synth, METH_VARARGS, synth_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dpgazesynth_kernel",
    "DPGazeSynth's deterministic per-window passes, compiled (see dpgazesynth/kernel.py).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__dpgazesynth_kernel(void)
{
    return PyModule_Create(&module);
}
