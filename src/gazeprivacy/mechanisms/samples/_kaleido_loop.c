/* SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the gazeprivacy developers
 *
 * Kaleido's sequential threshold loop (KaleidoStream._run_python in kaleido.py), compiled.
 *
 * Why hand-written C: the loop is sequential by nature (each test compares with the point the
 * previous test published, each publication's budget depends on the window's earlier ones), so
 * numpy cannot vectorise it, and no library implements Kaleido. In Python it costs ~1 us per
 * tested sample, most of a whole `gazeprivacy protect --mechanism kaleido` run; here ~20 ns.
 * numba would do the same but costs ~0.5 s to import and JIT (or load its cache) in every
 * process, more than the loop itself; this module imports in well under a millisecond.
 *
 * The result is bit-identical to the Python loop (tests/mechanisms/samples/
 * test_kaleido_compiled.py): the same IEEE operations in the same order (compiled with
 * -ffp-contract=off: no fused multiply-add), pow() called through libm as CPython's `**` does,
 * the window's history summed by a correctly rounded sum (Shewchuk's partials with CPython's
 * final rounding: exactly what math.fsum returns), and, where the test distance lies within
 * 1e-9 (relative) of the threshold, the decision taken with the very Python function
 * (math.hypot or _haversine_deg) the Python loop uses, whose rounding may differ from libm's.
 *
 * Only the CPython C API and the buffer protocol are used (no numpy headers).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const double DEG2RAD = 3.14159265358979323846 / 180.0;  /* as math.radians */
static const double RAD2DEG = 180.0 / 3.14159265358979323846;  /* as math.degrees */
#define NEAR 1e-9       /* relative band around the threshold decided by the Python function */
#define NUM_PARTIALS 64 /* fsum partials of finite doubles never exceed ~40 */

/* libm's pow, called (GCC would fold pow(v, 2.0) into v * v, which may round differently) */
static double (*volatile libm_pow)(double, double) = pow;

/* v ** 2 as CPython's float_pow computes it: pow() of the absolute value */
static double
square(double v)
{
    return v == 0.0 ? 0.0 : libm_pow(fabs(v), 2.0);
}

/* _haversine_deg of kaleido.py, operation by operation */
static double
haversine_deg(double x1, double y1, double x2, double y2)
{
    double la1 = y1 * DEG2RAD, la2 = y2 * DEG2RAD;
    double dlo = (x2 - x1) * DEG2RAD, dla = (y2 - y1) * DEG2RAD;
    double a = square(sin(dla / 2.0)) + cos(la1) * cos(la2) * square(sin(dlo / 2.0));
    double s = sqrt(a);
    double m = s < 1.0 ? s : 1.0;  /* min(1.0, s) */
    return (2.0 * asin(m)) * RAD2DEG;
}

/* An exact running sum: Shewchuk's non-overlapping partials (as math.fsum keeps them), to
 * which values are added and from which they are removed (by adding their negation: exact).
 * partials_round() rounds the exact sum once, correctly, with CPython's final half-even step
 * (Modules/mathmodule.c), so it equals math.fsum of the values currently in the sum. */
typedef struct {
    double p[NUM_PARTIALS];
    int n;
} Partials;

static int
partials_add(Partials *s, double x)
{
    int i = 0;
    for (int j = 0; j < s->n; j++) {
        double y = s->p[j];
        if (fabs(x) < fabs(y)) {
            double t = x; x = y; y = t;
        }
        double hi = x + y;
        double lo = y - (hi - x);
        if (lo != 0.0)
            s->p[i++] = lo;
        x = hi;
    }
    if (i >= NUM_PARTIALS)
        return -1;
    s->p[i] = x;
    s->n = i + 1;
    return 0;
}

static double
partials_round(const Partials *s)
{
    double hi = 0.0, lo = 0.0;
    int m = s->n;
    if (m == 0)
        return 0.0;
    hi = s->p[--m];
    while (m > 0) {
        double x = hi, y = s->p[--m];
        hi = x + y;
        double yr = hi - x;
        lo = y - yr;
        if (lo != 0.0)
            break;
    }
    if (m > 0 && ((lo < 0.0 && s->p[m - 1] < 0.0) || (lo > 0.0 && s->p[m - 1] > 0.0))) {
        double y = lo * 2.0;
        double x = hi + y;
        double yr = x - hi;
        if (y == yr)
            hi = x;
    }
    return hi;
}

static int
overflowed(void)
{
    PyErr_SetString(PyExc_OverflowError, "too many partials in the exact sum");
    return -1;
}

/* the Python function's value (a float) for a decision near the threshold; -1 on error */
static int
call_exact(PyObject *fn, double *out, int nargs, double a, double b, double c, double d)
{
    PyObject *r = nargs == 2 ? PyObject_CallFunction(fn, "dd", a, b)
                             : PyObject_CallFunction(fn, "dddd", a, b, c, d);
    if (r == NULL)
        return -1;
    *out = PyFloat_AsDouble(r);
    Py_DECREF(r);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

typedef struct {
    Py_buffer x, y, tested, thr, rc, rs, out_eps, out_x, out_y;
} Buffers;

static void
release_all(Buffers *b)
{
    Py_buffer *all[] = {&b->x, &b->y, &b->tested, &b->thr, &b->rc, &b->rs,
                        &b->out_eps, &b->out_x, &b->out_y};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (all[i]->obj != NULL)
            PyBuffer_Release(all[i]);
}

/* the publishing history of the previous w - 1 samples: (index, eps_pub) in a buffer that is
 * compacted when full, and the exact sum of its eps_pub */
typedef struct {
    long long *idx;
    double *eps;
    Py_ssize_t cap, head, n;
    Partials sum;
} History;

static int
history_from(History *h, PyObject *pub_i, PyObject *pub_e, Py_ssize_t extra, long long w)
{
    PyObject *fi = PySequence_Fast(pub_i, "pub_i must be a sequence");
    if (fi == NULL)
        return -1;
    PyObject *fe = PySequence_Fast(pub_e, "pub_e must be a sequence");
    if (fe == NULL) {
        Py_DECREF(fi);
        return -1;
    }
    Py_ssize_t n0 = PySequence_Fast_GET_SIZE(fi);
    /* popped lazily: at most max(n0, w) entries at any time (w after a publication) */
    Py_ssize_t most = n0 + (Py_ssize_t)(w < PY_SSIZE_T_MAX / 4 ? w : PY_SSIZE_T_MAX / 4);
    h->cap = 2 * ((n0 + extra < most ? n0 + extra : most) + 1);
    h->idx = PyMem_Malloc(h->cap * sizeof(long long));
    h->eps = PyMem_Malloc(h->cap * sizeof(double));
    h->head = h->n = 0;
    h->sum.n = 0;
    int rc = 0;
    if (h->idx == NULL || h->eps == NULL || PySequence_Fast_GET_SIZE(fe) != n0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "pub_i and pub_e differ in length");
        rc = -1;
    }
    for (Py_ssize_t k = 0; rc == 0 && k < n0; k++) {
        h->idx[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fi, k));
        h->eps[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fe, k));
        if (PyErr_Occurred())
            rc = -1;
        else if (partials_add(&h->sum, h->eps[k]) < 0)
            rc = overflowed();
        h->n = k + 1;
    }
    Py_DECREF(fi);
    Py_DECREF(fe);
    return rc;
}

static void
history_free(History *h)
{
    PyMem_Free(h->idx);
    PyMem_Free(h->eps);
}

static int
history_push(History *h, long long gi, double eps)
{
    if (h->head + h->n == h->cap) {  /* full: move the live entries to the front */
        memmove(h->idx, h->idx + h->head, h->n * sizeof(long long));
        memmove(h->eps, h->eps + h->head, h->n * sizeof(double));
        h->head = 0;
    }
    h->idx[h->head + h->n] = gi;
    h->eps[h->head + h->n] = eps;
    h->n++;
    return partials_add(&h->sum, eps) < 0 ? overflowed() : 0;
}

/* the remaining history as two lists (the stream's deques are rebuilt from them) */
static PyObject *
history_lists(const History *h)
{
    PyObject *li = PyList_New(h->n), *le = PyList_New(h->n);
    if (li == NULL || le == NULL)
        goto fail;
    for (Py_ssize_t k = 0; k < h->n; k++) {
        PyObject *a = PyLong_FromLongLong(h->idx[h->head + k]);
        PyObject *b = PyFloat_FromDouble(h->eps[h->head + k]);
        if (a == NULL || b == NULL) {
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto fail;
        }
        PyList_SET_ITEM(li, k, a);
        PyList_SET_ITEM(le, k, b);
    }
    return Py_BuildValue("(NN)", li, le);
fail:
    Py_XDECREF(li);
    Py_XDECREF(le);
    return NULL;
}

/* budget left to publish at sample gi: (cap - fsum(window's eps_pub)) / 2, after sliding */
static int
publish_budget(History *h, long long gi, long long w, double cap, double *eps_pub)
{
    while (h->n && h->idx[h->head] <= gi - w) {
        if (partials_add(&h->sum, -h->eps[h->head]) < 0)
            return overflowed();
        h->head++;
        h->n--;
    }
    if (h->n == 0)
        h->sum.n = 0;  /* exactly zero */
    double spent = partials_round(&h->sum);
    *eps_pub = (cap - spent) / 2.0;
    return 0;
}

static int
check(Py_buffer *b, Py_ssize_t n, const char *name)
{
    if (b->len != n * 8) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd 8-byte items, got %zd bytes", name, n,
                     b->len);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(run_tests_doc,
"run_tests(x, y, tested, thr, rc, rs, out_eps, out_x, out_y, pub_i, pub_e, base, w, great,\n"
"          clamp, bx0, bx1, by0, by1, cap, last, exact_hypot, exact_haversine)\n"
"--\n\n"
"KaleidoStream._run_python compiled: tests and publishes at the tested positions (int64)\n"
"of x and y (float64) with the pre-drawn noise thr, rc, rs; writes eps_pub and the\n"
"published point into out_eps, out_x, out_y (zero where nothing was published).\n"
"last: the last published point (x, y) or None. Returns (last, (pub_i, pub_e)): the\n"
"new last point and the publishing history left (lists).");

static PyObject *
run_tests(PyObject *self, PyObject *args)
{
    Buffers b = {0};
    PyObject *pub_i, *pub_e, *last, *exact_hypot, *exact_hav;
    long long base, w;
    int great, clamp;
    double bx0, bx1, by0, by1, cap;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*w*w*w*OOLLppdddddOOO:run_tests", &b.x, &b.y,
                          &b.tested, &b.thr, &b.rc, &b.rs, &b.out_eps, &b.out_x, &b.out_y,
                          &pub_i, &pub_e, &base, &w, &great, &clamp, &bx0, &bx1, &by0, &by1,
                          &cap, &last, &exact_hypot, &exact_hav)) {
        release_all(&b);
        return NULL;
    }
    Py_ssize_t n = b.x.len / 8, k = b.tested.len / 8;
    int has_last = last != Py_None;
    double lx = 0.0, ly = 0.0;
    if (check(&b.y, n, "y") || check(&b.thr, k, "thr") || check(&b.rc, k, "rc")
        || check(&b.rs, k, "rs") || check(&b.out_eps, k, "out_eps")
        || check(&b.out_x, k, "out_x") || check(&b.out_y, k, "out_y")
        || (has_last && !PyArg_ParseTuple(last, "dd", &lx, &ly))) {
        release_all(&b);
        return NULL;
    }
    History h = {0};
    if (history_from(&h, pub_i, pub_e, k, w) < 0) {
        history_free(&h);
        release_all(&b);
        return NULL;
    }
    const double *x = b.x.buf, *y = b.y.buf, *thr = b.thr.buf, *rc = b.rc.buf, *rs = b.rs.buf;
    const int64_t *tl = b.tested.buf;
    double *oe = b.out_eps.buf, *ox_ = b.out_x.buf, *oy_ = b.out_y.buf;
    int err = 0;
    for (Py_ssize_t t = 0; t < k; t++) {
        int64_t j = tl[t];
        oe[t] = ox_[t] = oy_[t] = 0.0;
        if (j < 0 || j >= n) {
            PyErr_SetString(PyExc_IndexError, "tested position out of range");
            err = 1;
            break;
        }
        double xi = x[j], yi = y[j];
        if (has_last) {
            double dist = great ? haversine_deg(xi, yi, lx, ly) : hypot(xi - lx, yi - ly);
            if (fabs(dist - thr[t]) <= NEAR * fabs(dist)) {
                /* near the threshold: decide with the Python function's own rounding */
                int r = great ? call_exact(exact_hav, &dist, 4, xi, yi, lx, ly)
                              : call_exact(exact_hypot, &dist, 2, xi - lx, yi - ly, 0, 0);
                if (r < 0) {
                    err = 1;
                    break;
                }
            }
            if (dist <= thr[t])
                continue;  /* re-publish the last point */
        }
        long long gi = base + j;
        double eps_pub;
        if (publish_budget(&h, gi, w, cap, &eps_pub) < 0) {
            err = 1;
            break;
        }
        if (eps_pub <= 0.0)
            continue;  /* the budget is exhausted in floating point: re-publish */
        double ox = xi + rc[t] / eps_pub;
        double oy = yi + rs[t] / eps_pub;
        if (clamp) {  /* nearest valid point: post-processing, never resampling */
            ox = ox < bx0 ? bx0 : (ox > bx1 ? bx1 : ox);
            oy = oy < by0 ? by0 : (oy > by1 ? by1 : oy);
        }
        if (history_push(&h, gi, eps_pub) < 0) {
            err = 1;
            break;
        }
        has_last = 1;
        lx = ox_[t] = ox;
        ly = oy_[t] = oy;
        oe[t] = eps_pub;
    }
    release_all(&b);
    PyObject *hist = err ? NULL : history_lists(&h);
    history_free(&h);
    if (hist == NULL)
        return NULL;
    PyObject *out = has_last ? Py_BuildValue("((dd)O)", lx, ly, hist)
                             : Py_BuildValue("(OO)", Py_None, hist);
    Py_DECREF(hist);
    return out;
}

PyDoc_STRVAR(fsum_doc,
"fsum(values)\n--\n\n"
"The loop's exact sum (partials) of a float64 buffer (for the tests: equal to math.fsum).");

static PyObject *
fsum(PyObject *self, PyObject *arg)
{
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0)
        return NULL;
    Partials sum = {.n = 0};
    int rc = 0;
    for (Py_ssize_t k = 0; rc == 0 && k < b.len / 8; k++)
        rc = partials_add(&sum, ((const double *)b.buf)[k]);
    PyBuffer_Release(&b);
    if (rc < 0)
        return overflowed(), NULL;
    return PyFloat_FromDouble(partials_round(&sum));
}

static PyMethodDef methods[] = {
    {"run_tests", run_tests, METH_VARARGS, run_tests_doc},
    {"fsum", fsum, METH_O, fsum_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kaleido_loop",
    "Kaleido's sequential threshold loop, compiled (see kaleido.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__kaleido_loop(void)
{
    return PyModule_Create(&module);
}
