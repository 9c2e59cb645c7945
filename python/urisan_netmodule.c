/*
 * urisan_netmodule.c - `_urisan_net`, the Python door of liburisan-net
 * (doc/connect.md): a Resolver that looks a URL's host up (c-ares) and
 * judges every address with the address rule, and judge_addr for one
 * address. urisan_guard.py (the requests adapter and the httpx transport)
 * is built on it. The module only converts arguments and results; the
 * judgement is the library's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <arpa/inet.h>
#include <string.h>

#include "urisan.h"
#include "urisan_net.h"

/* A policy from text and/or a profile name (None, None: the default). */
static urisan_policy *policy_new(const char *text, Py_ssize_t tn, const char *profile)
{
    urisan_policy *p = PyMem_Malloc(urisan_policy_size());
    if (p == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    urisan_policy_init(p);
    if (profile != NULL && urisan_policy_profile(p, profile, strlen(profile)) != URISAN_OK) {
        PyErr_Format(PyExc_ValueError, "unknown profile '%s'", profile);
        PyMem_Free(p);
        return NULL;
    }
    if (text != NULL) {
        size_t line = 0;
        const char *msg = NULL;
        if (urisan_policy_parse(p, text, (size_t)tn, &line, &msg) != URISAN_OK) {
            PyErr_Format(PyExc_ValueError, "policy:%zu: %s", line, msg ? msg : "invalid");
            PyMem_Free(p);
            return NULL;
        }
    }
    return p;
}

/* ["name", ...] of flags f and rules */
static PyObject *reasons_list(urisan_flags f, unsigned rules)
{
    char buf[2048];
    size_t n = 0;
    if (urisan_reasons_format(f, rules, buf, sizeof buf, &n) != URISAN_OK)
        n = 0;
    PyObject *l = PyList_New(0);
    if (l == NULL)
        return NULL;
    size_t at = 0;
    while (at < n) {
        size_t e = at;
        while (e < n && buf[e] != ',')
            e++;
        PyObject *s = PyUnicode_FromStringAndSize(buf + at, (Py_ssize_t)(e - at));
        if (s == NULL || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(s);
        at = e + 1;
    }
    return l;
}

static const char *verdict_name(urisan_verdict v)
{
    return urisan_verdict_name(v) != NULL ? urisan_verdict_name(v) : "deny";
}

static PyObject *addr_dict(const urisan_net_addr *a)
{
    char ip[64];
    size_t n = 0;
    if (urisan_net_addr_text(a, ip, sizeof ip, &n) != URISAN_OK)
        n = 0;
    PyObject *cls = reasons_list(a->d.class_flags, 0);
    PyObject *why = a->d.verdict == URISAN_DENY ? reasons_list(a->d.deny_flags, a->d.rules)
                                                : reasons_list(a->d.flag_flags, 0);
    PyObject *d = NULL;
    if (cls != NULL && why != NULL)
        d = Py_BuildValue("{s:s#,s:i,s:O,s:s,s:O}", "address", ip, (Py_ssize_t)n, "family",
                          a->family, "classes", cls, "verdict", verdict_name(a->d.verdict),
                          "reasons", why);
    Py_XDECREF(cls);
    Py_XDECREF(why);
    return d;
}

static PyObject *result_dict(const urisan_net_result *res)
{
    PyObject *addrs = PyList_New(0);
    if (addrs == NULL)
        return NULL;
    for (size_t i = 0; i < res->n_addrs; i++) {
        PyObject *a = addr_dict(&res->addrs[i]);
        if (a == NULL || PyList_Append(addrs, a) < 0) {
            Py_XDECREF(a);
            Py_DECREF(addrs);
            return NULL;
        }
        Py_DECREF(a);
    }
    char why[512];
    size_t wn = 0;
    PyObject *denied = Py_None;
    Py_INCREF(Py_None);
    if (res->verdict == URISAN_DENY &&
        urisan_net_result_format(res, why, sizeof why, &wn) == URISAN_OK) {
        Py_DECREF(Py_None);
        denied = PyUnicode_FromStringAndSize(why, (Py_ssize_t)wn);
    }
    PyObject *reasons = reasons_list(0, res->rules);
    PyObject *d = NULL;
    if (denied != NULL && reasons != NULL)
        d = Py_BuildValue("{s:s,s:O,s:s,s:s,s:I,s:O,s:O,s:O}", "verdict",
                          verdict_name(res->verdict), "reasons", reasons, "status",
                          urisan_dns_status_name(res->status), "name", res->name, "ttl",
                          (unsigned)res->ttl, "cached", res->cached ? Py_True : Py_False,
                          "addresses", addrs, "denied", denied);
    Py_XDECREF(denied);
    Py_XDECREF(reasons);
    Py_DECREF(addrs);
    return d;
}

typedef struct {
    PyObject_HEAD
    urisan_resolver *r;
    urisan_policy *pol;
    PyThread_type_lock lock;   /* a resolver is one thread's at a time */
} ResolverObject;

static int Resolver_init(ResolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"dns_server", "policy", "profile", "timeout_ms", "tries",
                             "cache_entries", NULL};
    const char *servers = NULL, *text = NULL, *profile = NULL;
    Py_ssize_t tn = 0;
    unsigned timeout_ms = 0, tries = 0;
    Py_ssize_t cache = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$zz#zIIn:Resolver", kwlist, &servers, &text,
                                     &tn, &profile, &timeout_ms, &tries, &cache))
        return -1;
    if (self->r != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Resolver already initialised");
        return -1;
    }
    self->pol = policy_new(text, tn, profile);
    if (self->pol == NULL)
        return -1;
    urisan_resolver_opts o;
    memset(&o, 0, sizeof o);
    o.servers = servers;
    o.timeout_ms = timeout_ms;
    o.tries = tries;
    o.cache_entries = cache < 0 ? URISAN_RESOLVER_NO_CACHE : (size_t)cache;
    const char *why = NULL;
    self->r = urisan_resolver_new(&o, &why);
    if (self->r == NULL) {
        PyErr_Format(PyExc_ValueError, "resolver: %s", why ? why : "failed");
        return -1;
    }
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void Resolver_dealloc(ResolverObject *self)
{
    urisan_resolver_free(self->r);
    PyMem_Free(self->pol);
    if (self->lock != NULL)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

typedef urisan_status (*judge_fn)(urisan_resolver *, const char *, size_t,
                                  const urisan_policy *, urisan_net_result *);

static PyObject *resolver_judge(ResolverObject *self, PyObject *args, judge_fn fn)
{
    const char *s;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "s#", &s, &n))
        return NULL;
    if (self->r == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Resolver not initialised");
        return NULL;
    }
    urisan_net_result *res = PyMem_Malloc(sizeof *res);
    if (res == NULL)
        return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    fn(self->r, s, (size_t)n, self->pol, res);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    PyObject *d = result_dict(res);
    PyMem_Free(res);
    return d;
}

static PyObject *Resolver_judge_url(ResolverObject *self, PyObject *args)
{
    return resolver_judge(self, args, urisan_resolve_judge_url);
}

static PyObject *Resolver_judge_host(ResolverObject *self, PyObject *args)
{
    return resolver_judge(self, args, urisan_resolve_judge);
}

static PyMethodDef Resolver_methods[] = {
    {"judge_url", (PyCFunction)Resolver_judge_url, METH_VARARGS,
     "judge_url(url) -> dict: the URL's host looked up, every address judged."},
    {"judge_host", (PyCFunction)Resolver_judge_host, METH_VARARGS,
     "judge_host(host) -> dict: the host looked up, every address judged."},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject ResolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_urisan_net.Resolver",
    .tp_basicsize = sizeof(ResolverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Resolver(*, dns_server=None, policy=None, profile=None, timeout_ms=0, tries=0, "
              "cache_entries=0): a c-ares resolver with its answer cache, judging under the "
              "policy (text) on top of the profile.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Resolver_init,
    .tp_dealloc = (destructor)Resolver_dealloc,
    .tp_methods = Resolver_methods,
};

/* judge_addr("169.254.169.254", policy=None, profile=None) -> dict */
static PyObject *py_judge_addr(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"address", "policy", "profile", NULL};
    const char *addr, *text = NULL, *profile = NULL;
    Py_ssize_t tn = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|$z#z:judge_addr", kwlist, &addr, &text, &tn,
                                     &profile))
        return NULL;
    urisan_net_addr a;
    memset(&a, 0, sizeof a);
    if (inet_pton(AF_INET, addr, a.addr) == 1)
        a.family = 4;
    else if (inet_pton(AF_INET6, addr, a.addr) == 1)
        a.family = 6;
    else
        return PyErr_Format(PyExc_ValueError, "not an IPv4 or IPv6 address: '%s'", addr);
    urisan_policy *p = policy_new(text, tn, profile);
    if (p == NULL)
        return NULL;
    urisan_judge_addr(p, a.family, a.addr, &a.d);
    PyMem_Free(p);
    return addr_dict(&a);
}

static PyMethodDef methods[] = {
    {"judge_addr", (PyCFunction)(void (*)(void))py_judge_addr, METH_VARARGS | METH_KEYWORDS,
     "judge_addr(address, *, policy=None, profile=None) -> dict: the address rule."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_urisan_net",
    "Where a client connects (liburisan-net); see doc/python.md and urisan_guard.", -1,
    methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__urisan_net(void);
PyMODINIT_FUNC PyInit__urisan_net(void)
{
    if (PyType_Ready(&ResolverType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Resolver", (PyObject *)&ResolverType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
