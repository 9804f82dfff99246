/* SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the gazeprivacy developers
 *
 * What REMoDNaV's two compiled modules (_remodnav_loop.c, _remodnav_filters.c) share: the
 * CPython includes, get_doubles() (a float64 buffer from any object that exports one) and the
 * module definition (REMODNAV_MODULE). Included once by each; setup.py lists it in both
 * extensions' `depends` (a change rebuilds them, and setuptools ships it in the sdist).
 *
 * Only the CPython C API and the buffer protocol are used (no numpy headers).
 */
#ifndef GAZEPRIVACY_REMODNAV_COMMON_H
#define GAZEPRIVACY_REMODNAV_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* a C-contiguous float64 buffer (writable if the object allows it); on failure -1 with a
 * TypeError naming `name` and b->obj NULL (nothing to release) */
static int
get_doubles(PyObject *o, Py_buffer *b, const char *name)
{
    if (PyObject_GetBuffer(o, b, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0
        && (PyErr_Clear(), PyObject_GetBuffer(o, b, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)) < 0) {
        b->obj = NULL;
        return -1;
    }
    const char *f = b->format != NULL ? b->format : "B";
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    if (strcmp(f, "d") != 0 || b->itemsize != 8) {
        PyErr_Format(PyExc_TypeError, "%s must be a contiguous float64 buffer", name);
        PyBuffer_Release(b);
        b->obj = NULL;
        return -1;
    }
    return 0;
}

/* the module `name` (an identifier: its PyInit_<name>) with the file's `methods` table and the
 * docstring `doc` */
#define REMODNAV_MODULE(name, doc)                                                         \
    static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, #name, doc, -1, methods};   \
    PyMODINIT_FUNC PyInit_##name(void) { return PyModule_Create(&module); }

#endif
