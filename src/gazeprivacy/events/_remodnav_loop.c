/* SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the gazeprivacy developers
 *
 * REMoDNaV's classification of one preprocessed gap-free segment (remodnav 1.1.2's
 * EyegazeClassifier.__call__ with gazeprivacy's lean classifier: _remodnav_fast.py's
 * adaptive_thresholds, detect_saccades and _classify_isp, remodnav.py's _find_peaks, and
 * _remodnav_batch.py's deferred_fix_or_pursuit), compiled; events/_remodnav_compiled.py loads it.
 *
 *   classify()    the global saccades (thresholds from the median-filtered speeds, peaks, local
 *                 thresholds per peak), then the recursion over the stretches between saccades
 *                 (per NaN-free stretch: its own thresholds and peaks, the saccades found there
 *                 and the stretches between those), noting every stretch without a saccade
 *                 long enough for a fixation; returns the saccades and those stretches;
 *   thresholds()  the adaptive thresholds of one array of speeds (Nystroem & Holmqvist 2010);
 *   pairwise_sum() NumPy's sum of a float64 array (the peaks' sort key), for the tests.
 *
 * Why hand-written C: the recursion makes one Python call of some twenty NumPy operations per
 * stretch between saccades, on windows of tens of samples, about 33,000 of them on the protect
 * benchmark (1.2 CPU s, most of participant-synth's event detection); the steps are sequential
 * (each stretch depends on the saccades found around it), so NumPy cannot batch them. REMoDNaV
 * has no compiled variant; numba: see _kaleido_loop.c.
 *
 * Its filters (the low-pass step of the stretches between saccades, the preprocessing) are in
 * _remodnav_filters.c.
 *
 * Only without the post-saccadic oscillation search (max_pso_dur = 0: below 200 Hz), whose
 * amplitude test needs whole event records; the caller keeps the Python path otherwise. The
 * result is bit-identical to the Python path (tests/events/test_remodnav_compiled.py): the
 * same IEEE operations in the same order (compiled with -ffp-contract=off), medians as NumPy's
 * (the middle value, or the mean of the middle two), sums as NumPy's pairwise summation, sorts
 * stable as Python's sorted().
 *
 * Only the CPython C API and the buffer protocol are used (no numpy headers).
 */
#include "_remodnav_common.h" /* Python.h, get_doubles, REMODNAV_MODULE */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAD_SCALE 0.6744897501960817 /* statsmodels' mad: the normal's 0.75 quantile */
#define PW_BLOCKSIZE 128             /* NumPy's pairwise summation block */

/* a growable array of int64 records of `width` fields */
typedef struct {
    int64_t *v;
    Py_ssize_t n, cap;
} Vec;

static int
vec_push(Vec *a, const int64_t *rec, int width)
{
    if (a->n + width > a->cap) {
        Py_ssize_t cap = a->cap ? 2 * a->cap : 256;
        while (cap < a->n + width)
            cap *= 2;
        int64_t *v = realloc(a->v, (size_t)cap * sizeof(int64_t));
        if (v == NULL)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    memcpy(a->v + a->n, rec, (size_t)width * sizeof(int64_t));
    a->n += width;
    return 0;
}

/* NumPy's pairwise_sum of a contiguous float64 array (numpy/_core/src/umath/loops_utils.h.src):
 * a plain loop below 8 values, eight running sums within a block of 128, halves above */
static double
pairwise_sum(const double *a, Py_ssize_t n)
{
    if (n < 8) {
        double res = 0.;
        for (Py_ssize_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= PW_BLOCKSIZE) {
        double r[8];
        Py_ssize_t i;
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

/* np.add.reduce of a non-empty float64 array: its identity -0.0 plus the pairwise sum */
static double
numpy_sum(const double *a, Py_ssize_t n)
{
    return -0.0 + pairwise_sum(a, n);
}

static int
cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* sorts a[0:n] (no NaN) ascending: quicksort with a median-of-three pivot and insertion sort
 * below 17 values (about three times qsort's speed on the windows here), qsort past a depth
 * of 64 (never on speeds; a guard against quadratic time) */
static void
sort_doubles(double *a, Py_ssize_t n, int depth)
{
    while (n > 16) {
        if (depth-- == 0) {
            qsort(a, (size_t)n, sizeof(double), cmp_double);
            return;
        }
        double p0 = a[0], p1 = a[n / 2], p2 = a[n - 1], t;
        double pivot = p0 < p1 ? (p1 < p2 ? p1 : (p0 < p2 ? p2 : p0))
                               : (p0 < p2 ? p0 : (p1 < p2 ? p2 : p1));
        Py_ssize_t i = 0, j = n - 1;
        for (;;) { /* Hoare: a[:j + 1] <= pivot <= a[j + 1:] */
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i >= j)
                break;
            t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        if (j + 1 < n - j - 1) {
            sort_doubles(a, j + 1, depth);
            a += j + 1;
            n -= j + 1;
        }
        else {
            sort_doubles(a + j + 1, n - j - 1, depth);
            n = j + 1;
        }
    }
    for (Py_ssize_t i = 1; i < n; i++) {
        double v = a[i];
        Py_ssize_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

typedef struct {
    const double *vel, *med, *x;
    Py_ssize_t n;
    double startvel, nf, max_sac_freq;
    Py_ssize_t min_intersac, min_sac, context, min_fix;
    double *sorted, *dev;  /* scratch: n values each */
    unsigned char *status; /* n, all zero between detect_saccades calls */
    Vec events;            /* (id, inner, start, end): the saccades, in REMoDNaV's order */
    Vec deferred;          /* (start, end): stretches left to the fixation-or-pursuit step */
} Ctx;

/* the median of the sorted s[0:j] (j > 0) as _remodnav_fast.adaptive_thresholds takes it */
static double
sorted_median(const double *s, Py_ssize_t j)
{
    Py_ssize_t k = j / 2;
    return j % 2 ? s[k] : (s[k - 1] + s[k]) / 2;
}

/* the median of |s[0:j] - med| for the sorted s[0:j] and its median med: the deviations
 * below the middle grow downwards, those above it upwards; merged from the middle */
static double
mad_median(const double *s, Py_ssize_t j, double med, double *dev)
{
    Py_ssize_t lo = j / 2 - 1, hi = j / 2; /* s[:hi] <= med <= s[hi:] */
    Py_ssize_t need = j / 2 + 1;           /* the middle one or two values, in order */
    for (Py_ssize_t m = 0; m < need; m++) {
        double dl = lo >= 0 ? fabs(s[lo] - med) : INFINITY;
        double dh = hi < j ? fabs(s[hi] - med) : INFINITY;
        if (hi < j && (lo < 0 || dh <= dl)) {
            dev[m] = dh;
            hi++;
        }
        else {
            dev[m] = dl;
            lo--;
        }
    }
    Py_ssize_t k = j / 2;
    return j % 2 ? dev[k] : (dev[k - 1] + dev[k]) / 2;
}

/* _remodnav_fast.adaptive_thresholds of v[0:m]: (peak threshold, onset threshold) */
static void
thresholds_of(Ctx *c, const double *v, Py_ssize_t m, double *peak, double *onset)
{
    double *s = c->sorted;
    Py_ssize_t ns = 0;
    for (Py_ssize_t i = 0; i < m; i++)
        if (!isnan(v[i]))
            s[ns++] = v[i];
    sort_doubles(s, ns, 64);
    double cur = c->startvel, med = NAN, scale = NAN, dif = 2;
    Py_ssize_t kept = -1;
    int count = 0;
    while (dif > 1 && count < 30) {
        double old = cur;
        Py_ssize_t a = 0, b = ns; /* j: how many sorted speeds are below old */
        while (a < b) {
            Py_ssize_t mid = a + (b - a) / 2;
            if (s[mid] < old)
                a = mid + 1;
            else
                b = mid;
        }
        Py_ssize_t j = a;
        if (j == kept) { /* the same speeds as the last step: the same threshold */
            count++;
            break;
        }
        kept = j;
        if (j) {
            med = sorted_median(s, j);
            scale = mad_median(s, j, med, c->dev) / MAD_SCALE;
        }
        else {
            med = NAN;
            scale = NAN;
        }
        cur = med + 2 * c->nf * scale;
        if (cur == 0.0) {
            cur = old;
            break;
        }
        dif = fabs(old - cur);
        count++;
    }
    *peak = cur;
    *onset = med + c->nf * scale;
}

typedef struct {
    Py_ssize_t on, off, order;
    double key;
} Peak;

/* descending key, ties in their order (Python's stable sorted(..., reverse=True)) */
static int
cmp_peak(const void *pa, const void *pb)
{
    const Peak *a = pa, *b = pb;
    if (a->key > b->key)
        return -1;
    if (a->key < b->key)
        return 1;
    return (a->order > b->order) - (a->order < b->order);
}

/* remodnav._find_peaks(v[0:m], thr), offset by `shift`, with each run's sort key (the sum of
 * its non-NaN speeds, through the run's first sample below thr); the count, or -1 */
static Py_ssize_t
find_peaks(Ctx *c, const double *v, Py_ssize_t m, double thr, Py_ssize_t shift, Peak **out)
{
    Py_ssize_t np_ = 0, cap = 0;
    Peak *p = NULL;
    Py_ssize_t i = 0;
    while (i < m) {
        if (!(v[i] > thr)) {
            i++;
            continue;
        }
        Py_ssize_t on = i, off = on + 1;
        while (off < m && !(v[off] < thr))
            off++;
        Py_ssize_t last = off < m ? off : m - 1; /* the run's window: v[on:last + 1] */
        Py_ssize_t k = 0;
        for (Py_ssize_t t = on; t <= last; t++)
            if (!isnan(v[t]))
                c->dev[k++] = v[t];
        if (np_ == cap) {
            cap = cap ? 2 * cap : 16;
            Peak *q = realloc(p, (size_t)cap * sizeof(Peak));
            if (q == NULL) {
                free(p);
                return -1;
            }
            p = q;
        }
        p[np_] = (Peak){on + shift, last + shift, np_, numpy_sum(c->dev, k)};
        np_++;
        i = off + 1;
    }
    *out = p;
    return np_;
}

/* _remodnav_fast.detect_saccades over [start, end): with the global peaks[0:npk] and a context
 * window (context > 0), or (context 0) with the window's own thresholds and peaks; appends
 * each saccade (id, start, end) to `found` */
static int
detect_saccades(Ctx *c, Peak *peaks, Py_ssize_t npk, Py_ssize_t start, Py_ssize_t end,
                Py_ssize_t context, Vec *found)
{
    const double *vel = c->vel;
    double peak_thr = NAN, onset_thr = NAN;
    Py_ssize_t n = c->n, nfound = 0;
    Peak *own = NULL;
    if (!context) {
        thresholds_of(c, vel + start, end - start, &peak_thr, &onset_thr);
        npk = find_peaks(c, vel + start, end - start, peak_thr, start, &own);
        if (npk < 0)
            return -1;
        peaks = own;
    }
    if (npk)
        qsort(peaks, (size_t)npk, sizeof(Peak), cmp_peak);
    Py_ssize_t first = found->n;
    for (Py_ssize_t i = 0; i < npk; i++) {
        Py_ssize_t ss = peaks[i].on, se = peaks[i].off;
        if (context) {
            Py_ssize_t ws = ss - context / 2 > start ? ss - context / 2 : start;
            Py_ssize_t we = se + context - (ss - ws);
            we = we < end ? we : end;
            thresholds_of(c, vel + ws, we - ws, &peak_thr, &onset_thr);
        }
        /* remodnav.clf.find_movement_onsetidx / find_movement_offsetidx on the whole segment */
        while (ss > 0 && (vel[ss] > onset_thr || vel[ss] <= vel[ss - 1]))
            ss--;
        while (se < n - 1 && (vel[se] > onset_thr || vel[se] > vel[se + 1]))
            se++;
        if (se - ss < c->min_sac)
            continue;
        int skip = 0;
        for (Py_ssize_t t = ss; t < se && !skip; t++)
            skip = isnan(c->x[t]);
        Py_ssize_t a = ss - c->min_intersac > 0 ? ss - c->min_intersac : 0;
        Py_ssize_t b = se + c->min_intersac < n ? se + c->min_intersac : n;
        for (Py_ssize_t t = a; t < b && !skip; t++)
            skip = c->status[t];
        if (skip)
            continue;
        int64_t rec[3] = {i, ss, se};
        if (vec_push(found, rec, 3) < 0) {
            free(own);
            return -1;
        }
        memset(c->status + ss, 1, (size_t)(se - ss));
        nfound++;
        if (c->max_sac_freq && (double)nfound / (double)n > c->max_sac_freq)
            break;
    }
    for (Py_ssize_t r = first; r < found->n; r += 3) /* status back to zero */
        memset(c->status + found->v[r + 1], 0, (size_t)(found->v[r + 2] - found->v[r + 1]));
    free(own);
    return 0;
}

static int classify_isp(Ctx *c, Py_ssize_t start, Py_ssize_t end);

/* EyegazeClassifier._classify_intersaccade_periods of [start, end) around the saccades
 * sac[0:ns] ((id, start, end) each, sorted by start) */
static int
classify_isps(Ctx *c, const int64_t *sac, Py_ssize_t ns, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t prev_end = -1; /* -1: no previous saccade */
    for (Py_ssize_t i = 0; i < ns; i++) {
        Py_ssize_t ws = prev_end < 0 ? start : prev_end, we = sac[3 * i + 1];
        if (ws != we && classify_isp(c, ws, we) < 0)
            return -1;
        prev_end = sac[3 * i + 2];
    }
    if (prev_end >= 0 && prev_end == end)
        return 0;
    return classify_isp(c, prev_end < 0 ? start : prev_end, end);
}

static int
cmp_start(const void *pa, const void *pb)
{
    const int64_t *a = pa, *b = pb;
    if (a[1] != b[1])
        return (a[1] > b[1]) - (a[1] < b[1]);
    return (a[3] > b[3]) - (a[3] < b[3]); /* (equal starts: their order, as sorted()) */
}

/* _classify_intersaccade_period_helper of the NaN-free [start, end): its saccades (inner ones,
 * kept at least min_intersac from its ends) and the stretches between them, recursively, or
 * the whole stretch left to the fixation-or-pursuit step */
static int
classify_helper(Ctx *c, Py_ssize_t start, Py_ssize_t end)
{
    if (end - start > 2 * c->min_intersac + c->min_sac) {
        Vec found = {NULL, 0, 0};
        if (detect_saccades(c, NULL, 0, start, end, 0, &found) < 0) {
            free(found.v);
            return -1;
        }
        Py_ssize_t kept = 0;
        int64_t *keep = NULL;
        if (found.n) {
            keep = malloc((size_t)(found.n / 3) * 4 * sizeof(int64_t));
            if (keep == NULL) {
                free(found.v);
                return -1;
            }
        }
        for (Py_ssize_t r = 0; r < found.n; r += 3) {
            int64_t id = found.v[r], ss = found.v[r + 1], se = found.v[r + 2];
            if (ss - start < c->min_intersac || end - se < c->min_intersac)
                continue; /* too close to the stretch's ends */
            int64_t rec[4] = {id, 1, ss, se};
            if (vec_push(&c->events, rec, 4) < 0) {
                free(found.v);
                free(keep);
                return -1;
            }
            int64_t k4[4] = {id, ss, se, kept};
            memcpy(keep + 4 * kept, k4, sizeof(k4));
            kept++;
        }
        free(found.v);
        if (kept) {
            qsort(keep, (size_t)kept, 4 * sizeof(int64_t), cmp_start);
            int64_t *sac = malloc((size_t)kept * 3 * sizeof(int64_t));
            if (sac == NULL) {
                free(keep);
                return -1;
            }
            for (Py_ssize_t i = 0; i < kept; i++)
                memcpy(sac + 3 * i, keep + 4 * i, 3 * sizeof(int64_t));
            free(keep);
            int rc = classify_isps(c, sac, kept, start, end);
            free(sac);
            return rc;
        }
        free(keep);
    }
    if (end - start >= c->min_fix) {
        int64_t rec[2] = {start, end};
        return vec_push(&c->deferred, rec, 2);
    }
    return 0;
}

/* _remodnav_fast._classify_isp: the helper on every NaN-free stretch of x[start:end] */
static int
classify_isp(Ctx *c, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t i = start;
    while (i < end) {
        if (isnan(c->x[i])) {
            i++;
            continue;
        }
        Py_ssize_t a = i;
        while (i < end && !isnan(c->x[i]))
            i++;
        if (classify_helper(c, a, i) < 0)
            return -1;
    }
    return 0;
}

/* the whole classification (EyegazeClassifier.__call__ without its final sort) */
static int
classify_all(Ctx *c)
{
    double peak_thr, onset_thr;
    Peak *peaks = NULL;
    thresholds_of(c, c->med, c->n, &peak_thr, &onset_thr);
    Py_ssize_t npk = find_peaks(c, c->med, c->n, peak_thr, 0, &peaks);
    if (npk < 0)
        return -1;
    Vec found = {NULL, 0, 0};
    int rc = detect_saccades(c, peaks, npk, 0, c->n, c->context, &found);
    free(peaks);
    Py_ssize_t ns = found.n / 3;
    int64_t *keep = rc == 0 && ns ? malloc((size_t)ns * 4 * sizeof(int64_t)) : NULL;
    if (rc < 0 || (ns && keep == NULL)) {
        free(found.v);
        return -1;
    }
    for (Py_ssize_t i = 0; i < ns; i++) {
        int64_t *f = found.v + 3 * i;
        int64_t rec[4] = {f[0], 0, f[1], f[2]}, k4[4] = {f[0], f[1], f[2], i};
        memcpy(keep + 4 * i, k4, sizeof(k4));
        if (vec_push(&c->events, rec, 4) < 0) {
            free(found.v);
            free(keep);
            return -1;
        }
    }
    if (ns)
        qsort(keep, (size_t)ns, 4 * sizeof(int64_t), cmp_start);
    for (Py_ssize_t i = 0; i < ns; i++)
        memcpy(found.v + 3 * i, keep + 4 * i, 3 * sizeof(int64_t));
    free(keep);
    rc = classify_isps(c, found.v, ns, 0, c->n);
    free(found.v);
    return rc;
}

static PyObject *
records(const Vec *a, int width)
{
    PyObject *out = PyList_New(a->n / width);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < a->n / width; i++) {
        PyObject *t = PyTuple_New(width);
        if (t == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        for (int j = 0; j < width; j++) {
            PyObject *v = PyLong_FromLongLong(a->v[i * width + j]);
            if (v == NULL) {
                Py_DECREF(t);
                Py_DECREF(out);
                return NULL;
            }
            PyTuple_SET_ITEM(t, j, v);
        }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

PyDoc_STRVAR(classify_doc,
"classify(med_vel, vel, x, start_velocity, noise_factor, max_saccade_frequency,\n"
"         min_intersaccade, min_saccade, context, min_fixation) -> (saccades, stretches)\n\n"
"REMoDNaV's classification of one preprocessed segment without the PSO search: its\n"
"saccades (id, inner, start, end) in the order REMoDNaV yields them (inner: found between\n"
"saccades, REMoDNaV's ISAC) and the stretches (start, end) left to the fixation-or-pursuit\n"
"step, in sample indices.");

static PyObject *
classify(PyObject *self, PyObject *args)
{
    PyObject *om, *ov, *ox;
    double startvel, nf, freq;
    Py_ssize_t mi, ms, ctx, mf;
    if (!PyArg_ParseTuple(args, "OOOdddnnnn", &om, &ov, &ox, &startvel, &nf, &freq, &mi, &ms,
                          &ctx, &mf))
        return NULL;
    if (mi < 0 || ms < 1 || ctx < 1 || mf < 0) {
        PyErr_SetString(PyExc_ValueError, "classify: durations must be >= 0 (saccade and "
                        "context >= 1)");
        return NULL;
    }
    Py_buffer bm, bv, bx;
    bm.obj = bv.obj = bx.obj = NULL;
    PyObject *result = NULL;
    Ctx c;
    memset(&c, 0, sizeof(c));
    if (get_doubles(om, &bm, "med_vel") < 0 || get_doubles(ov, &bv, "vel") < 0
        || get_doubles(ox, &bx, "x") < 0)
        goto done;
    c.n = bv.len / 8;
    if (bm.len != bv.len || bx.len != bv.len) {
        PyErr_SetString(PyExc_ValueError, "classify: med_vel, vel and x differ in length");
        goto done;
    }
    c.med = bm.buf;
    c.vel = bv.buf;
    c.x = bx.buf;
    c.startvel = startvel;
    c.nf = nf;
    c.max_sac_freq = freq;
    c.min_intersac = mi;
    c.min_sac = ms;
    c.context = ctx;
    c.min_fix = mf;
    c.sorted = malloc((size_t)(c.n + 1) * sizeof(double));
    c.dev = malloc((size_t)(c.n + 1) * sizeof(double));
    c.status = calloc((size_t)c.n + 1, 1);
    if (c.sorted == NULL || c.dev == NULL || c.status == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = classify_all(&c);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *ev = records(&c.events, 4), *df = ev ? records(&c.deferred, 2) : NULL;
    if (df != NULL)
        result = PyTuple_Pack(2, ev, df);
    Py_XDECREF(ev);
    Py_XDECREF(df);
done:
    free(c.sorted);
    free(c.dev);
    free(c.status);
    free(c.events.v);
    free(c.deferred.v);
    if (bm.obj)
        PyBuffer_Release(&bm);
    if (bv.obj)
        PyBuffer_Release(&bv);
    if (bx.obj)
        PyBuffer_Release(&bx);
    return result;
}

PyDoc_STRVAR(thresholds_doc,
"thresholds(vels, start_velocity, noise_factor) -> (peak, onset)\n\n"
"_remodnav_fast.adaptive_thresholds of a float64 array of speeds.");

static PyObject *
thresholds(PyObject *self, PyObject *args)
{
    PyObject *ov;
    Ctx c;
    memset(&c, 0, sizeof(c));
    if (!PyArg_ParseTuple(args, "Odd", &ov, &c.startvel, &c.nf))
        return NULL;
    Py_buffer b;
    if (get_doubles(ov, &b, "vels") < 0)
        return NULL;
    Py_ssize_t n = b.len / 8;
    c.sorted = malloc((size_t)(n + 1) * sizeof(double));
    c.dev = malloc((size_t)(n + 1) * sizeof(double));
    PyObject *out = NULL;
    if (c.sorted == NULL || c.dev == NULL)
        PyErr_NoMemory();
    else {
        double peak, onset;
        thresholds_of(&c, b.buf, n, &peak, &onset);
        out = Py_BuildValue("dd", peak, onset);
    }
    free(c.sorted);
    free(c.dev);
    PyBuffer_Release(&b);
    return out;
}

PyDoc_STRVAR(sum_doc, "pairwise_sum(a) -> float\n\nnp.add.reduce of a float64 array.");

static PyObject *
sum(PyObject *self, PyObject *args)
{
    PyObject *oa;
    if (!PyArg_ParseTuple(args, "O", &oa))
        return NULL;
    Py_buffer b;
    if (get_doubles(oa, &b, "a") < 0)
        return NULL;
    double s = numpy_sum(b.buf, b.len / 8);
    PyBuffer_Release(&b);
    return PyFloat_FromDouble(s);
}

static PyMethodDef methods[] = {
    {"classify", classify, METH_VARARGS, classify_doc},
    {"thresholds", thresholds, METH_VARARGS, thresholds_doc},
    {"pairwise_sum", sum, METH_VARARGS, sum_doc},
    {NULL, NULL, 0, NULL},
};

REMODNAV_MODULE(_remodnav_loop,
                "REMoDNaV's per-segment classification, compiled (see "
                "events/_remodnav_compiled.py).")
