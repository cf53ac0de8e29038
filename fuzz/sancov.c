/* Native coverage of jelly's compiled modules for atheris (libFuzzer), with gcc.
 *
 * gcc's -fsanitize-coverage=trace-pc calls __sanitizer_cov_trace_pc() at every basic block
 * and trace-cmp calls __sanitizer_cov_trace_cmp*() at every comparison.  libFuzzer wants
 * clang's inline 8-bit counters instead (and treats trace_pc as obsolete), so this module
 * keeps its own counters, one per hashed edge (previous block, this block), which fuzz/run.py
 * registers with atheris' libFuzzer (__sanitizer_cov_8bit_counters_init / _pcs_init) and
 * forwards the comparisons to libFuzzer's handlers (value profile, auto-dictionary).
 *
 * It is a top-level module (_jelly_sancov) loaded with RTLD_GLOBAL before jelly, so the
 * instrumented extensions bind their hooks to it.  Built only with JELLY_SANITIZE=coverage.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define N_COUNTERS (1 << 16)

static uint8_t counters[N_COUNTERS];
/* libFuzzer's PC table: one (pc, flags) pair per counter; the "pc" is the counter's index. */
static uintptr_t pcs[2 * N_COUNTERS];
static __thread uintptr_t previous;

#define EXPORT __attribute__((visibility("default")))

EXPORT void __sanitizer_cov_trace_pc(void) {
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    uintptr_t here = (pc ^ (pc >> 15)) * 0x9E3779B97F4A7C15ull >> 16;
    counters[(here ^ previous) & (N_COUNTERS - 1)]++;
    previous = here >> 1;
}

/* The comparison hooks: tail calls into libFuzzer once run.py has set them, so that the
 * return address libFuzzer records is the instrumented comparison's. */
#define CMP(name, type) \
    static void (*h_##name)(type, type); \
    EXPORT void name(type a, type b) { if (h_##name) h_##name(a, b); }
CMP(__sanitizer_cov_trace_cmp1, uint8_t)
CMP(__sanitizer_cov_trace_cmp2, uint16_t)
CMP(__sanitizer_cov_trace_cmp4, uint32_t)
CMP(__sanitizer_cov_trace_cmp8, uint64_t)
CMP(__sanitizer_cov_trace_const_cmp1, uint8_t)
CMP(__sanitizer_cov_trace_const_cmp2, uint16_t)
CMP(__sanitizer_cov_trace_const_cmp4, uint32_t)
CMP(__sanitizer_cov_trace_const_cmp8, uint64_t)
CMP(__sanitizer_cov_trace_cmpf, float)       /* gcc only: libFuzzer has no handler */
CMP(__sanitizer_cov_trace_cmpd, double)
static void (*h_switch)(uint64_t, uint64_t *);
EXPORT void __sanitizer_cov_trace_switch(uint64_t v, uint64_t *cases) {
    if (h_switch) h_switch(v, cases);
}

static PyObject *regions(PyObject *self, PyObject *unused) {
    for (Py_ssize_t i = 0; i < N_COUNTERS; i++) {
        pcs[2 * i] = (uintptr_t)i + 1;
        pcs[2 * i + 1] = 0;
    }
    return Py_BuildValue("(KnK)", (unsigned long long)(uintptr_t)counters,
                         (Py_ssize_t)N_COUNTERS, (unsigned long long)(uintptr_t)pcs);
}

static PyObject *set_hooks(PyObject *self, PyObject *args) {
    unsigned long long a[9];
    if (!PyArg_ParseTuple(args, "KKKKKKKKK", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6],
                          &a[7], &a[8]))
        return NULL;
    h___sanitizer_cov_trace_cmp1 = (void (*)(uint8_t, uint8_t))(uintptr_t)a[0];
    h___sanitizer_cov_trace_cmp2 = (void (*)(uint16_t, uint16_t))(uintptr_t)a[1];
    h___sanitizer_cov_trace_cmp4 = (void (*)(uint32_t, uint32_t))(uintptr_t)a[2];
    h___sanitizer_cov_trace_cmp8 = (void (*)(uint64_t, uint64_t))(uintptr_t)a[3];
    h___sanitizer_cov_trace_const_cmp1 = (void (*)(uint8_t, uint8_t))(uintptr_t)a[4];
    h___sanitizer_cov_trace_const_cmp2 = (void (*)(uint16_t, uint16_t))(uintptr_t)a[5];
    h___sanitizer_cov_trace_const_cmp4 = (void (*)(uint32_t, uint32_t))(uintptr_t)a[6];
    h___sanitizer_cov_trace_const_cmp8 = (void (*)(uint64_t, uint64_t))(uintptr_t)a[7];
    h_switch = (void (*)(uint64_t, uint64_t *))(uintptr_t)a[8];
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"regions", regions, METH_NOARGS,
     "(counters address, number of counters, PC table address) for libFuzzer."},
    {"set_hooks", set_hooks, METH_VARARGS,
     "Addresses of libFuzzer's cmp1, cmp2, cmp4, cmp8, const_cmp1..8 and switch handlers."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_jelly_sancov",
                                    "Native coverage of jelly for atheris (fuzz/sancov.c).",
                                    -1, methods};

PyMODINIT_FUNC PyInit__jelly_sancov(void) { return PyModule_Create(&module); }
