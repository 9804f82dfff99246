/* SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the gazeprivacy developers
 *
 * Kaleido's sequential threshold loop (KaleidoStream._run_python in kaleido.py) and the release
 * of a chunk around it (KaleidoStream._push_arrays), compiled.
 *
 * Why hand-written C: the loop is sequential by nature (each test compares with the point the
 * previous test published, each publication's budget depends on the window's earlier ones), so
 * numpy cannot vectorise it, and no library implements Kaleido. In Python it costs ~1.2 us per
 * tested sample, most of a whole `gazeprivacy protect --mechanism kaleido` run; here ~50 ns.
 * numba 0.68 would do the same but costs ~0.2 s to import and ~0.15 s to load its cached code
 * (1.2 s to compile the first time) in every process; this module imports in ~0.3 ms.
 *
 * The result is bit-identical to the Python loop (tests/mechanisms/samples/
 * test_kaleido_compiled.py): the same IEEE operations in the same order (compiled with
 * -ffp-contract=off: no fused multiply-add), pow() called through libm as CPython's `**` does,
 * the window's spends kept as an exact running sum (Shewchuk's partials, as math.fsum keeps
 * them; a spend leaving the window is added negated, exactly) rounded once with CPython's final
 * rounding (so equal to math.fsum of the window, the correctly rounded sum), and, where the test distance lies within
 * 1e-9 (relative) of the threshold, the decision taken with the very Python function
 * (math.hypot or _haversine_deg) the Python loop uses, whose rounding may differ from libm's.
 *
 * Only the CPython C API and the buffer protocol are used (no numpy headers).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
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
    /* rounding may put a just outside [0, 1] (coincident or antipodal points past +-90 deg
     * latitude): clamped, as the Python function does, so sqrt never sees a negative */
    a = a < 0.0 ? 0.0 : (a > 1.0 ? 1.0 : a);
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
    Py_buffer x, y, thr, rc, rs, out_x, out_y, spent;
} Buffers;

static void
release_all(Buffers *b)
{
    Py_buffer *all[] = {&b->x, &b->y, &b->thr, &b->rc, &b->rs, &b->out_x, &b->out_y, &b->spent};
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
    if (h->idx == NULL || h->eps == NULL) {
        PyErr_NoMemory();
        rc = -1;
    }
    else if (PySequence_Fast_GET_SIZE(fe) != n0) {
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

/* a C-contiguous float64 buffer of o (writable when asked) into b; -1 with an exception */
static int
get_f64(PyObject *o, Py_buffer *b, int writable, const char *name)
{
    int flags = PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, b, flags) < 0) {
        b->obj = NULL;
        return -1;
    }
    const char *f = b->format != NULL ? b->format : "B";
    int native = strcmp(f, "d") == 0 || strcmp(f, "@d") == 0 || strcmp(f, "=d") == 0;
#if PY_LITTLE_ENDIAN
    native = native || strcmp(f, "<d") == 0;
#else
    native = native || strcmp(f, ">d") == 0 || strcmp(f, "!d") == 0;
#endif
    if (!native || b->itemsize != 8 || b->len % 8 != 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a contiguous float64 buffer, got format %s "
                     "(item size %zd)", name, f, b->itemsize);
        PyBuffer_Release(b);
        b->obj = NULL;
        return -1;
    }
    return 0;
}

/* the tested samples of a chunk of n (see count()); overflow-free for any skip >= 1 */
static Py_ssize_t
count_tested(const double *x, const double *y, Py_ssize_t n, Py_ssize_t j0, Py_ssize_t skip)
{
    Py_ssize_t k = 0;
    for (Py_ssize_t j = j0 > 0 ? j0 : 0; j < n; j++)
        if (!isnan(x[j]) && !isnan(y[j])) {
            k++;
            if (skip - 1 >= n - j)  /* the next test lies past the chunk */
                break;
            j += skip - 1;
        }
    return k;
}

PyDoc_STRVAR(count_doc,
"count(x, y, j0, skip)\n--\n\n"
"How many samples of the chunk (float64 x, y; NaN: missing) are tested: from position j0 the\n"
"next valid sample, then the next valid one at least skip later, and so on.");

static PyObject *
count(PyObject *self, PyObject *args)
{
    Py_buffer bx = {0}, by = {0};
    PyObject *ox, *oy;
    Py_ssize_t j0, skip, k = 0;
    if (!PyArg_ParseTuple(args, "OOnn:count", &ox, &oy, &j0, &skip)
        || get_f64(ox, &bx, 0, "x") < 0 || get_f64(oy, &by, 0, "y") < 0)
        goto done;
    if (bx.len != by.len || skip < 1) {
        PyErr_SetString(PyExc_ValueError, "x and y differ in length, or skip < 1");
        goto done;
    }
    k = count_tested(bx.buf, by.buf, bx.len / 8, j0, skip);
done:
    if (bx.obj != NULL)
        PyBuffer_Release(&bx);
    if (by.obj != NULL)
        PyBuffer_Release(&by);
    return PyErr_Occurred() ? NULL : PyLong_FromSsize_t(k);
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

typedef struct {           /* the parameters of one push */
    Py_ssize_t j0, skip;   /* first position that may be tested; samples between tests */
    long long base, w;     /* index of the chunk's first sample; window */
    int hold, great, clamp;
    double bx0, bx1, by0, by1, cap, eps_test;
    PyObject *exact_hypot, *exact_hav;
} Setup;

/* is sample (xi, yi) within the noisy threshold of the last point (the Python loop's test)? */
static int
within(const Setup *p, double xi, double yi, double lx, double ly, double thr)
{
    double dist = p->great ? haversine_deg(xi, yi, lx, ly) : hypot(xi - lx, yi - ly);
    if (fabs(dist - thr) <= NEAR * fabs(dist)) {
        /* near the threshold: decide with the Python function's own rounding */
        int r = p->great ? call_exact(p->exact_hav, &dist, 4, xi, yi, lx, ly)
                         : call_exact(p->exact_hypot, &dist, 2, xi - lx, yi - ly, 0, 0);
        if (r < 0)
            return -1;
    }
    return dist <= thr;
}

PyDoc_STRVAR(push_doc,
"push(x, y, thr, rc, rs, out_x, out_y, spent, pub_i, pub_e, last, j0, skip, base, w, hold,\n"
"     great, clamp, bx0, bx1, by0, by1, cap, eps_test, exact_hypot, exact_haversine)\n"
"--\n\n"
"KaleidoStream._push_arrays with _run_python compiled, for a validated chunk (float64 x, y,\n"
"finite or NaN): tests the samples count() names with the pre-drawn noise thr, rc, rs, and\n"
"writes the released points and the budget spent per sample into out_x, out_y, spent.\n"
"last: the last published point (x, y) or None. Returns (last, (pub_i, pub_e), k, pending,\n"
"missing): the new last point, the publishing history left (lists), the samples tested,\n"
"the earliest position of the next test (relative to the chunk) and the missing samples.");

static PyObject *
push(PyObject *self, PyObject *args)
{
    Buffers b = {0};
    Setup p;
    PyObject *o[8], *pub_i, *pub_e, *last;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOnnLLpppddddddOO:push", &o[0], &o[1], &o[2], &o[3],
                          &o[4], &o[5], &o[6], &o[7], &pub_i, &pub_e, &last,
                          &p.j0, &p.skip, &p.base, &p.w, &p.hold, &p.great, &p.clamp, &p.bx0,
                          &p.bx1, &p.by0, &p.by1, &p.cap, &p.eps_test, &p.exact_hypot,
                          &p.exact_hav))
        return NULL;
    if (get_f64(o[0], &b.x, 0, "x") || get_f64(o[1], &b.y, 0, "y")
        || get_f64(o[2], &b.thr, 0, "thr") || get_f64(o[3], &b.rc, 0, "rc")
        || get_f64(o[4], &b.rs, 0, "rs") || get_f64(o[5], &b.out_x, 1, "out_x")
        || get_f64(o[6], &b.out_y, 1, "out_y") || get_f64(o[7], &b.spent, 1, "spent")) {
        release_all(&b);
        return NULL;
    }
    Py_ssize_t n = b.x.len / 8, k = b.thr.len / 8, t = 0, missing = 0;
    Py_ssize_t pending = p.j0 > 0 ? p.j0 : 0;
    int has_last = last != Py_None, err = 0;
    double lx = NAN, ly = NAN;
    if (has_last && !PyTuple_Check(last))
        PyErr_Format(PyExc_TypeError, "last must be a tuple (x, y) or None, got %.100s",
                     Py_TYPE(last)->tp_name);
    else if (p.skip < 1 || p.w < 1 || p.base < 0 || p.base > LLONG_MAX - n)
        PyErr_SetString(PyExc_ValueError, "skip < 1, w < 1 or base outside [0, 2**63 - n)");
    if (PyErr_Occurred() || check(&b.y, n, "y") || check(&b.rc, k, "rc")
        || check(&b.rs, k, "rs") || check(&b.out_x, n, "out_x")
        || check(&b.out_y, n, "out_y") || check(&b.spent, n, "spent")
        || (has_last && !PyArg_ParseTuple(last, "dd", &lx, &ly))) {
        release_all(&b);
        return NULL;
    }
    if (count_tested(b.x.buf, b.y.buf, n, p.j0, p.skip) != k) {
        PyErr_Format(PyExc_ValueError, "the noise (%zd tested samples) does not match "
                     "count() (%zd)", k, count_tested(b.x.buf, b.y.buf, n, p.j0, p.skip));
        release_all(&b);
        return NULL;
    }
    History h = {0};
    if (history_from(&h, pub_i, pub_e, k, p.w) < 0) {
        history_free(&h);
        release_all(&b);
        return NULL;
    }
    const double *x = b.x.buf, *y = b.y.buf, *thr = b.thr.buf, *rc = b.rc.buf, *rs = b.rs.buf;
    double *ox_ = b.out_x.buf, *oy_ = b.out_y.buf, *spent = b.spent.buf;
    for (Py_ssize_t j = 0; j < n && !err; j++) {
        double xi = x[j], yi = y[j];
        spent[j] = 0.0;
        if (isnan(xi) || isnan(yi)) {  /* missing: spends nothing; NaN or the last point */
            missing++;
            ox_[j] = p.hold ? lx : NAN;
            oy_[j] = p.hold ? ly : NAN;
            continue;
        }
        if (j < pending || t == k) {  /* between tests: the last point again */
            ox_[j] = lx;
            oy_[j] = ly;
            continue;
        }
        pending = p.skip > PY_SSIZE_T_MAX - j ? PY_SSIZE_T_MAX : j + p.skip;  /* saturated */
        int again = 0;
        if (has_last) {  /* the very first sample of the stream is published untested */
            spent[j] = p.eps_test;
            again = within(&p, xi, yi, lx, ly, thr[t]);
            err = again < 0;
        }
        double eps_pub = 0.0;
        if (!again && !err) {
            long long gi = p.base + j;
            err = publish_budget(&h, gi, p.w, p.cap, &eps_pub) < 0;
            /* eps_pub <= 0: the budget is exhausted in floating point: re-publish */
            if (!err && eps_pub > 0.0) {
                double ox = xi + rc[t] / eps_pub;
                double oy = yi + rs[t] / eps_pub;
                if (p.clamp) {  /* nearest valid point: post-processing, never resampling */
                    ox = ox < p.bx0 ? p.bx0 : (ox > p.bx1 ? p.bx1 : ox);
                    oy = oy < p.by0 ? p.by0 : (oy > p.by1 ? p.by1 : oy);
                }
                err = history_push(&h, gi, eps_pub) < 0;
                has_last = 1;
                lx = ox;
                ly = oy;
                spent[j] += eps_pub;
            }
        }
        ox_[j] = lx;
        oy_[j] = ly;
        t++;
    }
    if (!err && t != k)
        err = (PyErr_SetString(PyExc_ValueError, "the noise does not match count()"), 1);
    release_all(&b);
    PyObject *hist = err ? NULL : history_lists(&h);
    history_free(&h);
    if (hist == NULL)
        return NULL;
    PyObject *out = has_last ? Py_BuildValue("((dd)Onnn)", lx, ly, hist, k, pending, missing)
                             : Py_BuildValue("(OOnnn)", Py_None, hist, k, pending, missing);
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
    if (get_f64(arg, &b, 0, "values") < 0)
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
    {"count", count, METH_VARARGS, count_doc},
    {"push", push, METH_VARARGS, push_doc},
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
