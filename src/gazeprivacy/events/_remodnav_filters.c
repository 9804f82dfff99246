/* SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the gazeprivacy developers
 *
 * REMoDNaV's filters for gazeprivacy's lean classifier, compiled (events/_remodnav_compiled.py
 * loads it with _remodnav_loop.c, whose header says why hand-written C):
 *
 *   lowpass_speeds()  _remodnav_batch's low-passed speeds of the stretches between saccades:
 *                     remodnav._sosfiltfilt (SciPy's second-order-sections loop forward and
 *                     backward over the odd extension) of x and y, one stretch at a time;
 *   preproc()         _remodnav_fast.preproc of a NaN-free segment without blink dilation and
 *                     Savitzky-Golay filter: speeds, SciPy's median filter, the speed cap,
 *                     acceleration, in one pass.
 *
 * Bit-identical to the Python path (tests/events/test_remodnav_compiled.py,
 * tests/events/test_remodnav_fast.py): the same IEEE operations in the same order (compiled
 * with -ffp-contract=off), SciPy's loop operation by operation, NumPy's `** 2` and `** 0.5` as
 * its square and sqrt, a median filter's value one of its window's samples.
 *
 * Only the CPython C API and the buffer protocol are used (no numpy headers).
 */
#include "_remodnav_common.h" /* Python.h, get_doubles, REMODNAV_MODULE */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* SciPy's second-order-sections loop (scipy/signal/_sosfilt.pyx, _sosfilt_float) on x[0:n]
 * in place, from the initial conditions zi * x0 (n_sections x 2) */
static void
sosfilt_row(const double *sos, Py_ssize_t nsec, const double *zi, double x0, double *z,
            double *x, Py_ssize_t n)
{
    for (Py_ssize_t s = 0; s < 2 * nsec; s++)
        z[s] = zi[s] * x0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double x_cur = x[i];
        for (Py_ssize_t s = 0; s < nsec; s++) {
            const double *c = sos + 6 * s;
            double x_new = c[0] * x_cur + z[2 * s];
            z[2 * s] = c[1] * x_cur - c[4] * x_new + z[2 * s + 1];
            z[2 * s + 1] = c[2] * x_cur - c[5] * x_new;
            x_cur = x_new;
        }
        x[i] = x_cur;
    }
}

/* remodnav._sosfiltfilt of v[0:m] (m >= 2) into out[0:m]: the odd extension by pad samples
 * on each side, the loop forward, reversed, the loop again, reversed back */
static void
sosfiltfilt(const double *sos, Py_ssize_t nsec, const double *zi, const double *v,
            Py_ssize_t m, double *ext, double *z, double *out)
{
    Py_ssize_t pad = 3 * (2 * nsec + 1) < m - 1 ? 3 * (2 * nsec + 1) : m - 1;
    Py_ssize_t len = m + 2 * pad;
    double head = 2 * v[0], tail = 2 * v[m - 1];
    for (Py_ssize_t j = 0; j < pad; j++) {
        ext[j] = head - v[pad - j];
        ext[pad + m + j] = tail - v[m - 2 - j];
    }
    memcpy(ext + pad, v, (size_t)m * sizeof(double));
    sosfilt_row(sos, nsec, zi, ext[0], z, ext, len);
    for (Py_ssize_t a = 0, b = len - 1; a < b; a++, b--) {
        double t = ext[a];
        ext[a] = ext[b];
        ext[b] = t;
    }
    sosfilt_row(sos, nsec, zi, ext[0], z, ext, len);
    for (Py_ssize_t i = 0; i < m; i++)
        out[i] = ext[len - 1 - pad - i];
}

/* v a finite whole number in [lo, hi] (lo, hi below 2 ** 53: exact as doubles) */
static int
whole_in(double v, Py_ssize_t lo, Py_ssize_t hi)
{
    return isfinite(v) && v >= (double)lo && v <= (double)hi && v == floor(v);
}

PyDoc_STRVAR(speeds_doc,
"lowpass_speeds(x, y, starts, lengths, sos, zi, scale, threshold, out) -> list\n\n"
"_remodnav_batch's low-passed speeds of the stretches x[s:s + m], y[s:s + m] (m >= 2 each;\n"
"starts and lengths float64): remodnav._sosfiltfilt of x and y (sos: n x 6, zi: n x 2), the\n"
"steps' lengths times scale, written one stretch after the other into out (m - 1 each);\n"
"returns the indices of the stretches with a speed above threshold.");

static PyObject *
lowpass_speeds(PyObject *self, PyObject *args)
{
    PyObject *o[7];
    double scale, thr;
    if (!PyArg_ParseTuple(args, "OOOOOOddO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &scale,
                          &thr, &o[6]))
        return NULL;
    static const char *names[7] = {"x", "y", "starts", "lengths", "sos", "zi", "out"};
    Py_buffer b[7];
    PyObject *result = NULL;
    double *work = NULL;
    int got = 0;
    for (; got < 7; got++)
        if (get_doubles(o[got], &b[got], names[got]) < 0)
            goto done;
    Py_ssize_t n = b[0].len / 8, nw = b[2].len / 8, nsec = b[4].len / 48;
    const double *x = b[0].buf, *y = b[1].buf, *st = b[2].buf, *ln = b[3].buf;
    double *out = b[6].buf;
    if (b[1].len != b[0].len || b[3].len != b[2].len || b[4].len % 48 != 0
        || b[5].len != 2 * 8 * nsec || b[6].readonly) {
        PyErr_SetString(PyExc_ValueError, "lowpass_speeds: x and y, starts and lengths or "
                        "sos and zi differ in length, sos is not n x 6, or out is read-only");
        goto done;
    }
    Py_ssize_t maxm = 0, total = 0;
    for (Py_ssize_t w = 0; w < nw; w++) {
        /* checked as doubles before any cast: a cast of NaN or of a value outside
         * Py_ssize_t is undefined behaviour */
        if (!whole_in(st[w], 0, n) || !whole_in(ln[w], 2, n) || st[w] + ln[w] > (double)n) {
            PyErr_SetString(PyExc_ValueError, "lowpass_speeds: a stretch outside x, shorter "
                            "than 2 samples or not a whole number");
            goto done;
        }
        Py_ssize_t m = (Py_ssize_t)ln[w];
        maxm = m > maxm ? m : maxm;
        total += m - 1;
    }
    if (total > b[6].len / 8) {
        PyErr_SetString(PyExc_ValueError, "lowpass_speeds: out too short");
        goto done;
    }
    /* ext (m + 2 pad), the filtered x and y (m each), the filter state */
    Py_ssize_t ext_len = maxm + 2 * 3 * (2 * nsec + 1);
    work = malloc((size_t)(ext_len + 2 * maxm + 2 * nsec + 1) * sizeof(double));
    result = PyList_New(0);
    if (work == NULL || result == NULL) {
        Py_CLEAR(result);
        PyErr_NoMemory();
        goto done;
    }
    double *ext = work, *fx = ext + ext_len, *fy = fx + maxm, *z = fy + maxm;
    Py_ssize_t at = 0;
    for (Py_ssize_t w = 0; w < nw; w++) {
        Py_ssize_t s = (Py_ssize_t)st[w], m = (Py_ssize_t)ln[w];
        sosfiltfilt(b[4].buf, nsec, b[5].buf, x + s, m, ext, z, fx);
        sosfiltfilt(b[4].buf, nsec, b[5].buf, y + s, m, ext, z, fy);
        int above = 0;
        for (Py_ssize_t i = 0; i < m - 1; i++) {
            double dx = fx[i + 1] - fx[i], dy = fy[i + 1] - fy[i];
            double v = sqrt(dx * dx + dy * dy) * scale; /* (d ** 2 + d ** 2) ** 0.5 * scale */
            out[at + i] = v;
            above |= v > thr;
        }
        at += m - 1;
        if (above) {
            PyObject *i = PyLong_FromSsize_t(w);
            if (i == NULL || PyList_Append(result, i) < 0) {
                Py_XDECREF(i);
                Py_CLEAR(result);
                goto done;
            }
            Py_DECREF(i);
        }
    }
done:
    free(work);
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&b[i]);
    return result;
}

/* scipy.ndimage.median_filter(v, size=k) (mode "reflect", origin 0) of v[0:n] into out: per
 * sample the value of rank k // 2 among v[i - k // 2 : i - k // 2 + k], reflected at the ends */
static void
median_filter(const double *v, Py_ssize_t n, Py_ssize_t k, double *win, double *out)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        for (Py_ssize_t j = 0; j < k; j++) {
            Py_ssize_t t = i - k / 2 + j;
            while (t < 0 || t >= n)
                t = t < 0 ? -t - 1 : 2 * n - 1 - t;
            win[j] = v[t];
        }
        for (Py_ssize_t a = 1; a < k; a++) { /* insertion sort: a few samples */
            double v = win[a];
            Py_ssize_t b = a;
            while (b > 0 && win[b - 1] > v) {
                win[b] = win[b - 1];
                b--;
            }
            win[b] = v;
        }
        out[i] = win[k / 2];
    }
}

PyDoc_STRVAR(preproc_doc,
"preproc(x, y, scale, sampling_rate, median_length, max_velocity, out)\n\n"
"_remodnav_fast.preproc of NaN-free x and y without blink dilation and Savitzky-Golay\n"
"filter: fills out (n x 5: median-filtered speed, capped speed, acceleration, x, y).");

static PyObject *
preproc(PyObject *self, PyObject *args)
{
    PyObject *ox, *oy, *oo;
    double scale, sr, max_vel;
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "OOddndO", &ox, &oy, &scale, &sr, &k, &max_vel, &oo))
        return NULL;
    Py_buffer bx, by, bo;
    bx.obj = by.obj = bo.obj = NULL;
    double *work = NULL;
    PyObject *result = NULL;
    if (get_doubles(ox, &bx, "x") < 0 || get_doubles(oy, &by, "y") < 0
        || get_doubles(oo, &bo, "out") < 0)
        goto done;
    Py_ssize_t n = bx.len / 8;
    if (by.len != bx.len || bo.len != 5 * bx.len || bo.readonly || k < 0) {
        PyErr_SetString(PyExc_ValueError, "preproc: x and y differ in length, out is not a "
                        "writable n x 5 buffer, or median_length < 0");
        goto done;
    }
    const double *x = bx.buf, *y = by.buf;
    double *o = bo.buf;
    work = malloc((size_t)(2 * n + k + 1) * sizeof(double));
    if (work == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    double prev = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i) { /* _get_velocities, then _capped: a too fast speed is the previous one */
            double dx = x[i] - x[i - 1], dy = y[i] - y[i - 1];
            double v = sqrt(dx * dx + dy * dy) * scale;
            if (!(v > max_vel))
                prev = v;
        }
        o[5 * i + 1] = prev;
        o[5 * i + 2] = i ? (prev - o[5 * (i - 1) + 1]) * sr : 0.0;
        o[5 * i + 3] = x[i];
        o[5 * i + 4] = y[i];
    }
    if (k) {
        double *mx = work, *my = work + n;
        median_filter(x, n, k, work + 2 * n, mx);
        median_filter(y, n, k, work + 2 * n, my);
        for (Py_ssize_t i = 0; i < n; i++) {
            double dx = i ? mx[i] - mx[i - 1] : 0.0, dy = i ? my[i] - my[i - 1] : 0.0;
            o[5 * i] = i ? sqrt(dx * dx + dy * dy) * scale : 0.0 * scale;
        }
    }
    else
        for (Py_ssize_t i = 0; i < n; i++)
            o[5 * i] = o[5 * i + 1];
    result = Py_None;
    Py_INCREF(result);
done:
    free(work);
    if (bx.obj)
        PyBuffer_Release(&bx);
    if (by.obj)
        PyBuffer_Release(&by);
    if (bo.obj)
        PyBuffer_Release(&bo);
    return result;
}

static PyMethodDef methods[] = {
    {"lowpass_speeds", lowpass_speeds, METH_VARARGS, speeds_doc},
    {"preproc", preproc, METH_VARARGS, preproc_doc},
    {NULL, NULL, 0, NULL},
};

REMODNAV_MODULE(_remodnav_filters,
                "REMoDNaV's filters, compiled (see events/_remodnav_compiled.py).")
