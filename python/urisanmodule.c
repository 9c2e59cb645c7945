/*
 * urisanmodule.c - the `urisan` Python module (doc/python.md).
 *
 * A thin layer over liburisan: every function takes str or bytes, does
 * its C call with the GIL released (not the nested-URL walk, whose
 * visitor builds Python objects: nested_out), and builds the same dictionaries as
 * `urisan check --json` / `extract --json` (same keys, same order, same
 * names). Text in results is str: the input's bytes decoded as UTF-8 with
 * the "surrogateescape" handler, so bytes that are not UTF-8 survive
 * (s.encode("utf-8", "surrogateescape") gives them back). resolve and
 * normalize return the type they were given.
 *
 * Buffers for resolve/normalize/equivalent/extract are sized from what
 * the library reports (never above URISAN_HARD_CEILING * 4) and freed
 * before returning; a Policy is immutable once made, so several threads
 * may use one at the same time.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"
#ifdef URISAN_HAVE_MAIL
#include "urisan_mail.h"
#endif
#ifdef URISAN_HAVE_HOST
#include "urisan_host.h"
#endif

/* The one decision (doc/library.md): liburisan-host's urisan_judge, in
   this thread's context (homograph, invisible_char, host_uts46 judged as
   `urisan check` judges them), or urisan_check in a build without the
   host layer (whose policies cannot name those flags). With the GIL
   released. */
#ifndef URISAN_HAVE_HOST
typedef struct urisan_hostview urisan_hostview;   /* no host view keys */
#endif
static void decide(const char *in, size_t len, const urisan_policy *pol, urisan_uri *u,
                   urisan_report *r, urisan_decision *d, const urisan_hostview **hv)
{
#ifdef URISAN_HAVE_HOST
    urisan_judgement j;
    urisan_judge(NULL, in, len, pol, hv != NULL ? URISAN_JUDGE_VIEW : 0, &j);
    *u = j.uri;
    *r = j.rep;
    *d = j.dec;
    if (hv != NULL)
        *hv = j.hv;   /* in this thread's context: read before its next call */
#else
    urisan_check(in, len, pol, u, r, d);
    if (hv != NULL)
        *hv = NULL;
#endif
}

/* check(ref, base=...): the decision about where ref leads (u: ref's
   parse), as `urisan check --base` makes it. */
static urisan_status decide_base(const char *base, size_t blen, const char *ref, size_t rlen,
                                 const urisan_policy *pol, char *buf, size_t cap,
                                 size_t *needed, urisan_uri *u, urisan_report *r,
                                 urisan_decision *d, urisan_error *err,
                                 const urisan_hostview **hv)
{
#ifdef URISAN_HAVE_HOST
    urisan_judgement j;
    urisan_status st = urisan_judge_base(NULL, base, blen, ref, rlen, pol, URISAN_JUDGE_VIEW,
                                         buf, cap, needed, &j, err);
    *u = j.uri;
    *r = j.rep;
    *d = j.dec;
    *hv = j.hv;
    return st;
#else
    *hv = NULL;
    return urisan_check_base(base, blen, ref, rlen, pol, buf, cap, needed, u, r, d, err);
#endif
}

/* The one decision of a link that urisan_extract_with or liburisan-mail
   finds: the host layer's (this thread's context; its judgement folded
   in before the decision, as `urisan extract` decides), else the core's
   (hooks NULL). */
#ifdef URISAN_HAVE_HOST
static urisan_link_judge link_judge = { NULL, NULL };   /* read only */
static const urisan_link_hooks link_hooks_ = { urisan_judge_link_decide, &link_judge };
#define LINK_HOOKS (&link_hooks_)
#else
#define LINK_HOOKS NULL
#endif

/* Flags only the host layer sets: refused in a policy without it. */
#ifdef URISAN_HAVE_HOST
#define REFUSED_FLAGS 0
#else
#define REFUSED_FLAGS URISAN_HOST_FLAGS
#endif

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

static PyObject *UrisanError;   /* urisan.Error(ValueError) */
static PyObject *PolicyError;   /* urisan.PolicyError(urisan.Error) */

/* raise urisan.Error(message) with .code, .offset, .input set */
static PyObject *raise_error(const urisan_error *e)
{
    PyObject *exc = PyObject_CallFunction(UrisanError, "s", urisan_status_message(e->code));
    if (exc == NULL)
        return NULL;
    PyObject *code = PyUnicode_FromString(urisan_status_name(e->code));
    PyObject *off = PyLong_FromSize_t(e->offset);
    PyObject *inp = PyLong_FromUnsignedLong(e->input);
    if (code != NULL && off != NULL && inp != NULL &&
        PyObject_SetAttrString(exc, "code", code) == 0 &&
        PyObject_SetAttrString(exc, "offset", off) == 0 &&
        PyObject_SetAttrString(exc, "input", inp) == 0)
        PyErr_SetObject(UrisanError, exc);
    Py_XDECREF(code);
    Py_XDECREF(off);
    Py_XDECREF(inp);
    Py_DECREF(exc);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Inputs: str (UTF-8) or bytes                                        */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *p;
    Py_ssize_t n;
    int is_bytes;
} in_text;

/* The object's bytes; they live as long as the object (str and bytes are
   immutable, so they may be read with the GIL released). */
static int get_text(PyObject *o, in_text *t, const char *what)
{
    if (PyBytes_Check(o)) {
        t->p = PyBytes_AS_STRING(o);
        t->n = PyBytes_GET_SIZE(o);
        t->is_bytes = 1;
        return 0;
    }
    if (PyUnicode_Check(o)) {
        t->p = PyUnicode_AsUTF8AndSize(o, &t->n);
        t->is_bytes = 0;
        return t->p == NULL ? -1 : 0;
    }
    PyErr_Format(PyExc_TypeError, "%s must be str or bytes, not %.100s", what,
                 Py_TYPE(o)->tp_name);
    return -1;
}

static PyObject *text_out(const char *p, size_t n)
{
    return PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "surrogateescape");
}

/* the result in the input's type */
static PyObject *typed_out(const char *p, size_t n, int is_bytes)
{
    return is_bytes ? PyBytes_FromStringAndSize(p, (Py_ssize_t)n) : text_out(p, n);
}

/* The str of a static name (a key literal, a flag, verdict or reason
   name from the library), made once and kept: the dicts reuse the same
   interned objects instead of building a dozen strings per URI. Keyed by
   the pointer; the GIL is held whenever it is called. */
#define NAME_CACHE 512
static struct { const char *p; PyObject *o; } name_cache[NAME_CACHE];

static PyObject *name_str(const char *s)     /* a new reference */
{
    size_t h = (size_t)(((uintptr_t)s >> 3) % NAME_CACHE);
    for (size_t k = 0; k < 8; k++) {
        size_t i = (h + k) % NAME_CACHE;
        if (name_cache[i].p == s)
            return Py_NewRef(name_cache[i].o);
        if (name_cache[i].p == NULL) {
            PyObject *o = PyUnicode_InternFromString(s);
            if (o == NULL)
                return NULL;
            name_cache[i].p = s;
            name_cache[i].o = o;
            return Py_NewRef(o);
        }
    }
    return PyUnicode_FromString(s);           /* the cache is crowded */
}

/* ------------------------------------------------------------------ */
/* Policy                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    urisan_policy *pol;    /* malloc'd: aligned for any type */
} PolicyObject;

static PyTypeObject PolicyType;

static int policy_apply(urisan_policy *pol, const char *text, size_t len, const char *name)
{
    urisan_policy_error pe;
    memset(&pe, 0, sizeof pe);
    urisan_status st;
    Py_BEGIN_ALLOW_THREADS
    st = urisan_policy_parse_refuse(pol, text, len, REFUSED_FLAGS, &pe);
    Py_END_ALLOW_THREADS
    if (st == URISAN_OK)
        return 0;
    /* "NAME:LINE:COLUMN: message 'word'", as the command prints it */
    PyObject *word = pe.word_len > 0 && pe.word_off <= len && pe.word_len <= len - pe.word_off
                     ? text_out(text + pe.word_off, pe.word_len) : Py_NewRef(Py_None);
    if (word == NULL)
        return -1;
    PyObject *s = word != Py_None
        ? PyUnicode_FromFormat("%s:%zu:%zu: %s '%U'", name, pe.line, pe.column,
                               pe.msg ? pe.msg : "invalid policy", word)
        : PyUnicode_FromFormat("%s:%zu: %s", name, pe.line, pe.msg ? pe.msg : "invalid policy");
    PyObject *exc = s == NULL ? NULL : PyObject_CallOneArg(PolicyError, s);
    Py_XDECREF(s);
    if (exc == NULL) {
        Py_DECREF(word);
        return -1;
    }
    PyObject *ln = PyLong_FromSize_t(pe.line);
    PyObject *col = PyLong_FromSize_t(pe.column);
    PyObject *code = name_str(urisan_status_name(st));
    if (ln != NULL && col != NULL && code != NULL &&
        PyObject_SetAttrString(exc, "line", ln) == 0 &&
        PyObject_SetAttrString(exc, "column", col) == 0 &&
        PyObject_SetAttrString(exc, "word", word) == 0 &&
        PyObject_SetAttrString(exc, "code", code) == 0 &&
        PyObject_SetAttrString(exc, "offset", Py_None) == 0 &&
        PyObject_SetAttrString(exc, "input", Py_None) == 0)
        PyErr_SetObject(PolicyError, exc);
    Py_XDECREF(ln);
    Py_XDECREF(col);
    Py_XDECREF(code);
    Py_DECREF(word);
    Py_DECREF(exc);
    return -1;
}

static int Policy_init(PolicyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"text", "name", "profile", NULL};
    PyObject *text = Py_None;
    const char *name = "<policy>";
    const char *profile = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Os$z:Policy", kwlist, &text, &name, &profile))
        return -1;
    if (self->pol == NULL) {
        self->pol = malloc(urisan_policy_size());
        if (self->pol == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    urisan_policy_init(self->pol);
    if (profile != NULL && urisan_policy_profile(self->pol, profile, strlen(profile)) != URISAN_OK) {
        PyObject *names = PyList_New(0);
        for (size_t i = 0; names != NULL && urisan_profile_name(i) != NULL; i++) {
            PyObject *n = name_str(urisan_profile_name(i));
            if (n == NULL || PyList_Append(names, n) < 0)
                Py_CLEAR(names);
            Py_XDECREF(n);
        }
        if (names != NULL) {
            PyErr_Format(PolicyError, "unknown profile '%s' (profiles: %R)", profile, names);
            Py_DECREF(names);
        }
        return -1;
    }
    if (text == Py_None)
        return 0;
    in_text t;
    if (get_text(text, &t, "policy text") < 0)
        return -1;
    return policy_apply(self->pol, t.p, (size_t)t.n, name);
}

static void Policy_dealloc(PolicyObject *self)
{
    free(self->pol);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The command's bound on a policy file (src/cli/cli.h CLI_FILE_MAX): a
   larger file - /dev/zero, a log given by mistake - is refused after
   reading one byte past it, with the command's message. */
#define POLICY_FILE_MAX ((Py_ssize_t)64 << 20)

/* Policy.from_file(path): read in Python (any path-like), parse in C */
static PyObject *Policy_from_file(PyObject *cls, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "profile", NULL};
    PyObject *path, *profile = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:from_file", kwlist, &path, &profile))
        return NULL;
    PyObject *io = PyImport_ImportModule("io");
    if (io == NULL)
        return NULL;
    PyObject *f = PyObject_CallMethod(io, "open", "Os", path, "rb");
    Py_DECREF(io);
    if (f == NULL)
        return NULL;
    PyObject *data = PyObject_CallMethod(f, "read", "n", POLICY_FILE_MAX + 1);
    PyObject *r = PyObject_CallMethod(f, "close", NULL);
    Py_DECREF(f);
    Py_XDECREF(r);
    if (data == NULL)
        return NULL;
    if (PyBytes_Check(data) && PyBytes_GET_SIZE(data) > POLICY_FILE_MAX) {
        Py_DECREF(data);
        PyObject *fs = PyOS_FSPath(path);
        if (fs != NULL)
            PyErr_Format(PolicyError, "%S: larger than %zd bytes", fs, POLICY_FILE_MAX);
        Py_XDECREF(fs);
        return NULL;
    }
    PyObject *name = PyOS_FSPath(path);
    PyObject *name_s = name != NULL ? PyObject_Str(name) : NULL;
    Py_XDECREF(name);
    if (name_s == NULL) {
        Py_DECREF(data);
        return NULL;
    }
    PyObject *cargs = PyTuple_Pack(2, data, name_s);
    PyObject *ckw = Py_BuildValue("{s:O}", "profile", profile);
    PyObject *res = cargs && ckw ? PyObject_Call(cls, cargs, ckw) : NULL;
    Py_XDECREF(cargs);
    Py_XDECREF(ckw);
    Py_DECREF(data);
    Py_DECREF(name_s);
    return res;
}

static PyObject *Policy_limits(PolicyObject *self, PyObject *Py_UNUSED(ignored))
{
    const urisan_limits *l = urisan_policy_limits(self->pol);
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n}",
                         "max_uri", (Py_ssize_t)l->max_uri,
                         "max_scheme", (Py_ssize_t)l->max_scheme,
                         "max_userinfo", (Py_ssize_t)l->max_userinfo,
                         "max_host", (Py_ssize_t)l->max_host,
                         "max_label", (Py_ssize_t)l->max_label,
                         "max_segments", (Py_ssize_t)l->max_segments);
}

static PyObject *Policy_profiles(PyObject *Py_UNUSED(a), PyObject *Py_UNUSED(b))
{
    PyObject *names = PyList_New(0);
    for (size_t i = 0; names != NULL && urisan_profile_name(i) != NULL; i++) {
        PyObject *n = name_str(urisan_profile_name(i));
        if (n == NULL || PyList_Append(names, n) < 0)
            Py_CLEAR(names);
        Py_XDECREF(n);
    }
    return names;
}

static PyMethodDef Policy_methods[] = {
    {"from_file", (PyCFunction)(void (*)(void))Policy_from_file,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "Policy.from_file(path, *, profile=None) -> Policy: a profile (or the built-in\n"
     "policy) plus the file's rules."},
    {"profiles", (PyCFunction)(void (*)(void))Policy_profiles, METH_NOARGS | METH_STATIC,
     "Policy.profiles() -> list of the built-in profile names."},
    {"limits", (PyCFunction)Policy_limits, METH_NOARGS,
     "limits() -> dict: the length limits in force (max_uri, ...)."},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject PolicyType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "urisan.Policy",
    .tp_basicsize = sizeof(PolicyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Policy(text=None, name='<policy>', *, profile=None): the built-in\n"
              "policy or a named profile ('proxy', 'ssrf', 'mail', ...), plus the\n"
              "rules of a policy file's text (doc/policy.md). Raises PolicyError\n"
              "naming line, column and word. Immutable; safe to share between threads.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Policy_init,
    .tp_dealloc = (destructor)Policy_dealloc,
    .tp_methods = Policy_methods,
};

/* policy argument: None (default) or a Policy */
static int get_policy(PyObject *o, const urisan_policy **pol)
{
    if (o == NULL || o == Py_None) {
        *pol = NULL;
        return 0;
    }
    if (!PyObject_TypeCheck(o, &PolicyType)) {
        PyErr_Format(PyExc_TypeError, "policy must be a urisan.Policy or None, not %.100s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    *pol = ((PolicyObject *)o)->pol;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Dictionaries with the keys of `urisan check --json`                 */
/* ------------------------------------------------------------------ */

/* d[key] = v, stealing v; -1 when v is NULL or the set fails */
static int put(PyObject *d, const char *key, PyObject *v)
{
    if (v == NULL)
        return -1;
    PyObject *k = name_str(key);
    int r = k == NULL ? -1 : PyDict_SetItem(d, k, v);
    Py_XDECREF(k);
    Py_DECREF(v);
    return r;
}

/* None, or {code, offset, message} as cli_jv_error writes it */
static PyObject *status_out(const urisan_error *err)
{
    if (err == NULL || err->code == URISAN_OK)
        Py_RETURN_NONE;
    PyObject *e = PyDict_New();
    if (e == NULL)
        return NULL;
    if (put(e, "code", name_str(urisan_status_name(err->code))) < 0 ||
        put(e, "offset", PyLong_FromSize_t(err->offset)) < 0 ||
        put(e, "message", name_str(urisan_status_message(err->code))) < 0) {
        Py_DECREF(e);
        return NULL;
    }
    return e;
}

/* ---- a result's keys (urisan.h "The result of one URI, described
   once"): the library's list, walked ---- */

static PyObject *names_out(const urisan_rvalue *v)
{
    PyObject *l = PyList_New(0);
    for (unsigned part = 0; l != NULL && part < 3; part++) {
        uint64_t set = part == 0 ? (uint64_t)v->first : part == 1 ? v->rules : (uint64_t)v->last;
        while (set != 0) {
            unsigned bit = (unsigned)__builtin_ctzll(set);
            set &= set - 1;
            const char *name = part == 1 ? urisan_rule_reason_name((urisan_rule_reason)bit)
                                         : urisan_flag_name((urisan_flag)bit);
            if (name == NULL)
                continue;
            PyObject *s = name_str(name);
            if (s == NULL || PyList_Append(l, s) < 0) {
                Py_XDECREF(s);
                Py_CLEAR(l);
                break;
            }
            Py_DECREF(s);
        }
    }
    return l;
}

/* [name, ...] of the URISAN_HIT_* bits of form (a row's "form"). */
static PyObject *forms_out(uint64_t form)
{
    PyObject *l = PyList_New(0);
    const char *name;
    for (unsigned bit = 0; l != NULL && (name = urisan_hit_form_name(bit)) != NULL; bit++) {
        if (!((form >> bit) & 1u))
            continue;
        PyObject *s = name_str(name);
        if (s == NULL || PyList_Append(l, s) < 0)
            Py_CLEAR(l);
        Py_XDECREF(s);
    }
    return l;
}

static PyObject *value_out(const urisan_rvalue *v)
{
    switch (v->kind) {
    case URISAN_RV_FORMS: return forms_out(v->u);
    case URISAN_RV_BOOL: return PyBool_FromLong(v->b);
    case URISAN_RV_UINT: return PyLong_FromUnsignedLongLong(v->u);
    case URISAN_RV_TEXT: return text_out(v->s, v->n);
    case URISAN_RV_NAME: return name_str(v->s);
    case URISAN_RV_NAMES: return names_out(v);
    case URISAN_RV_ERROR: return status_out(&v->err);
    default: Py_RETURN_NONE;
    }
}

/* The object of the keys sub[0..n) of r, or of the nested URL nu. */
static PyObject *object_out(const urisan_result *r, const urisan_nested_url *nu,
                            urisan_flags flags, const urisan_result_key *sub, size_t n)
{
    PyObject *o = PyDict_New();
    for (size_t i = 0; o != NULL && i < n; i++) {
        urisan_rvalue v;
        if (nu != NULL)
            urisan_nested_value(nu, flags, &sub[i], &v);
        else
            urisan_result_value(r, &sub[i], &v);
        if (put(o, sub[i].name, value_out(&v)) < 0)
            Py_CLEAR(o);
    }
    return o;
}

typedef struct {
    PyObject *list;   /* NULL once an error is set */
    const urisan_result_key *k;
} nested_acc;

static void nested_visit(void *ctx, const urisan_nested_url *nu, urisan_flags flags)
{
    nested_acc *a = ctx;
    if (a->list == NULL)
        return;
    PyObject *o = object_out(NULL, nu, flags, a->k->sub, a->k->nsub);
    if (o == NULL || PyList_Append(a->list, o) < 0)
        Py_CLEAR(a->list);
    Py_XDECREF(o);
}

/* The value of key k of r. The nested URLs' walk runs with the GIL
   held: it is linear and bounded by the URI, and the visitor builds
   Python objects. */
static PyObject *key_out(const urisan_result *r, const urisan_result_key *k)
{
    urisan_rvalue v;
    urisan_result_value(r, k, &v);
    if (v.kind == URISAN_RV_OBJECT)
        return object_out(r, NULL, 0, k->sub, k->nsub);
    if (v.kind == URISAN_RV_NESTED) {
        nested_acc a = { PyList_New(0), k };
        if (a.list != NULL)
            urisan_result_nested(r, nested_visit, &a);
        return a.list;
    }
    return value_out(&v);
}

/* ["name", ...] of f's flags in bit order. */
static PyObject *flags_out(urisan_flags f)
{
    urisan_rvalue v = { .kind = URISAN_RV_NAMES, .first = f };
    return names_out(&v);
}

enum { LEVEL_PARSE, LEVEL_ANALYSE, LEVEL_CHECK };

/* The largest result the module asks the library to write. */
#define OUT_MAX (4 * URISAN_HARD_CEILING + 64)

/* check(base=): where the reference led (the keys resolved and
   resolve_error of `check --json --base`) */
typedef struct {
    const char *out;      /* the resolved URI, NULL when it could not be */
    size_t n;
    urisan_error err;
} resolved_info;

/* The dictionary of one URI: the keys of the library's list up to the
   level asked for (its stage), as `urisan check --json` writes them. */
static PyObject *uri_dict(PyObject *uri_obj, const char *in, size_t len, int level,
                          const urisan_uri *u, const urisan_report *r,
                          const urisan_decision *d, const urisan_policy *pol,
                          const resolved_info *ri, const urisan_hostview *hv)
{
    (void)uri_obj;
    urisan_result res = {
        .in = in, .len = len, .full_len = len, .truncated = 0, .uri = u, .rep = r, .dec = d,
        .pol = pol, .resolved = ri != NULL ? ri->out : NULL, .rlen = ri != NULL ? ri->n : 0,
        .rerr = ri != NULL ? ri->err : (urisan_error){ URISAN_OK, 0, 0 },
    };
    unsigned mode = ri != NULL ? URISAN_RK_BASE : 0;
#ifdef URISAN_HAVE_HOST
    mode |= URISAN_RK_HOST;
    urisan_result_host(&res, NULL, hv, 0);
#else
    (void)hv;
#endif
    size_t n;
    const urisan_result_key *keys = urisan_result_keys(&n);
    PyObject *o = PyDict_New();
    for (size_t i = 0; o != NULL && i < n; i++) {
        const urisan_result_key *k = &keys[i];
        if ((int)k->stage > level || (k->when & mode) != k->when ||
            k->shown == URISAN_RS_NAMED || !urisan_result_present(&res, k))
            continue;
        if (put(o, k->name, key_out(&res, k)) < 0)
            Py_CLEAR(o);
    }
    return o;
}

/* ------------------------------------------------------------------ */
/* check / analyse / parse                                             */
/* ------------------------------------------------------------------ */

static PyObject *uri_level(PyObject *uri_obj, const in_text *tp, const urisan_policy *pol,
                           int level)
{
    in_text t = *tp;
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    const urisan_hostview *hv = NULL;
    memset(&r, 0, sizeof r);
    memset(&d, 0, sizeof d);
    size_t len = (size_t)t.n;
    Py_BEGIN_ALLOW_THREADS
    if (level == LEVEL_CHECK) {
        decide(t.p, len, pol, &u, &r, &d, &hv);
    } else if (level == LEVEL_ANALYSE) {
        urisan_parse_analyze(t.p, len, pol, &u, NULL, &r);
    } else {
        urisan_parse(t.p, len, pol ? urisan_policy_limits(pol) : NULL, &u, NULL);
    }
    Py_END_ALLOW_THREADS
    return uri_dict(uri_obj, t.p, len, level, &u, &r, &d, pol, NULL, hv);
}

static PyObject *do_uri(PyObject *args, PyObject *kw, int level, const char *fname)
{
    static char *kwlist[] = {"uri", "policy", NULL};
    PyObject *uri_obj, *pol_obj = Py_None;
    char fmt[32];
    snprintf(fmt, sizeof fmt, "O|$O:%s", fname);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &uri_obj, &pol_obj))
        return NULL;
    in_text t;
    const urisan_policy *pol;
    if (get_text(uri_obj, &t, "uri") < 0 || get_policy(pol_obj, &pol) < 0)
        return NULL;
    return uri_level(uri_obj, &t, pol, level);
}

/* check(ref, base=BASE): urisan_check_base, the judgement of where ref
   leads (`urisan check --base`). */
static PyObject *check_base(PyObject *uri_obj, const in_text *t, PyObject *base_obj,
                            const urisan_policy *pol)
{
    in_text b;
    if (get_text(base_obj, &b, "base") < 0)
        return NULL;
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    resolved_info ri = { NULL, 0, { URISAN_OK, 0, 0 } };
    const urisan_hostview *hv = NULL;
    size_t cap = 256, needed = 0;
    char *buf = NULL;
    urisan_status st = URISAN_E_NOSPACE;
    for (int round = 0; round < 2 && st == URISAN_E_NOSPACE; round++) {
        char *nb = realloc(buf, cap);
        if (nb == NULL) {
            free(buf);
            return PyErr_NoMemory();
        }
        buf = nb;
        Py_BEGIN_ALLOW_THREADS
        st = decide_base(b.p, (size_t)b.n, t->p, (size_t)t->n, pol, buf, cap, &needed, &u, &r,
                         &d, &ri.err, &hv);
        Py_END_ALLOW_THREADS
        if (needed + 1 > OUT_MAX)
            break;
        cap = needed + 1;
    }
    if (st == URISAN_OK) {
        ri.out = buf;
        ri.n = needed;
    }
    PyObject *o = uri_dict(uri_obj, t->p, (size_t)t->n, LEVEL_CHECK, &u, &r, &d, pol, &ri, hv);
    free(buf);
    return o;
}

static PyObject *py_check(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"uri", "base", "policy", NULL};
    PyObject *uri_obj, *base_obj = Py_None, *pol_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OO:check", kwlist, &uri_obj, &base_obj,
                                     &pol_obj))
        return NULL;
    in_text t;
    const urisan_policy *pol;
    if (get_text(uri_obj, &t, "uri") < 0 || get_policy(pol_obj, &pol) < 0)
        return NULL;
    if (base_obj == Py_None)
        return uri_level(uri_obj, &t, pol, LEVEL_CHECK);
    return check_base(uri_obj, &t, base_obj, pol);
}

#ifdef URISAN_HAVE_HOST
/* One header field: str or bytes, or a list of them (the values
   received: more than one, the field came twice). The objects live as
   long as the call's arguments. */
static int req_field(PyObject *v, urisan_request *r, const char *name, size_t nlen,
                     size_t *total)
{
    in_text t;
    if (PyList_Check(v) || PyTuple_Check(v)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
        if (n == 0) {
            PyErr_Format(PyExc_ValueError, "check_request: %s: an empty list", name);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            if (get_text(PySequence_Fast_GET_ITEM(v, i), &t, name) < 0)
                return -1;
            urisan_request_add(r, name, nlen, t.p, (size_t)t.n);
            *total += (size_t)t.n;
        }
        return 0;
    }
    if (get_text(v, &t, name) < 0)
        return -1;
    urisan_request_add(r, name, nlen, t.p, (size_t)t.n);
    *total += (size_t)t.n;
    return 0;
}

static int req_text(PyObject *o, const char **p, size_t *n, const char *what, size_t *total)
{
    *p = NULL;
    *n = 0;
    if (o == Py_None)
        return 0;
    in_text t;
    if (get_text(o, &t, what) < 0)
        return -1;
    *p = t.p;
    *n = (size_t)t.n;
    *total += *n;
    return 0;
}

/* check_request(*, scheme, host, target, method, policy, headers, trust,
   strip_prefix): check's dict for the URI the origin receives
   (urisan_judge_request: the request rebuilt by the library, then the
   one decision). A request rejected before a URI (a bad Host, CONNECT
   ...) is a deny whose reasons are the part's name (request_reason; None
   when a URI was judged) and whose uri is None. */
static PyObject *py_check_request(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"scheme", "host", "target", "method", "policy", "headers",
                             "trust", "strip_prefix", NULL};
    PyObject *scheme = Py_None, *host = Py_None, *target = Py_None, *method = Py_None,
             *pol_obj = Py_None, *headers = Py_None, *trust = Py_None, *strip = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOOOOOO:check_request", kwlist, &scheme,
                                     &host, &target, &method, &pol_obj, &headers, &trust,
                                     &strip))
        return NULL;
    const urisan_policy *pol;
    if (get_policy(pol_obj, &pol) < 0)
        return NULL;
    urisan_request r;
    urisan_request_init(&r);
    urisan_request_trust t;
    urisan_request_trust_init(&t);
    size_t total = 16, tlen = 0;
    const char *tp;
    if (req_text(scheme, &r.scheme, &r.scheme_len, "scheme", &total) < 0 ||
        req_text(target, &r.target, &r.target_len, "target", &total) < 0 ||
        req_text(method, &r.method, &r.method_len, "method", &total) < 0 ||
        req_text(strip, &t.strip_prefix, &t.strip_len, "strip_prefix", &total) < 0 ||
        req_text(trust, &tp, &tlen, "trust", &total) < 0 ||
        (host != Py_None && req_field(host, &r, "Host", 4, &total) < 0))
        return NULL;
    if (tp != NULL) {
        size_t off = 0, blen = 0;
        const char *sp = t.strip_prefix;
        size_t sl = t.strip_len;
        if (urisan_request_trust_parse(tp, tlen, &t, &off, &blen) != URISAN_OK) {
            char word[81];
            size_t wn = blen > 80 ? 80 : blen;
            memcpy(word, tp + off, wn);
            word[wn] = '\0';
            PyErr_Format(PyExc_ValueError,
                         "check_request: trust: '%s' is not a source, or named twice "
                         "(original-url, original-uri, forwarded-uri, target)", word);
            return NULL;
        }
        t.strip_prefix = sp;
        t.strip_len = sl;
    }
    if (headers != Py_None) {
        if (!PyDict_Check(headers)) {
            PyErr_Format(PyExc_TypeError, "check_request: headers must be a dict, not %.100s",
                         Py_TYPE(headers)->tp_name);
            return NULL;
        }
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(headers, &pos, &k, &v)) {
            in_text name;
            if (get_text(k, &name, "header name") < 0)
                return NULL;
            if (urisan_request_header_id(name.p, (size_t)name.n) < 0) {
                PyErr_Format(PyExc_ValueError, "check_request: headers: unknown header '%.80s' "
                             "(X-Original-URL, X-Original-URI, X-Original-Host, X-Original-Proto, "
                             "X-Forwarded-Uri, X-Forwarded-Host, X-Forwarded-Proto, Host)",
                             name.p);
                return NULL;
            }
            if (req_field(v, &r, name.p, (size_t)name.n, &total) < 0)
                return NULL;
        }
    }
    char *buf = malloc(total);
    if (buf == NULL)
        return PyErr_NoMemory();
    urisan_request_judgement rj;
    Py_BEGIN_ALLOW_THREADS
    urisan_judge_request(NULL, &r, &t, pol, URISAN_JUDGE_VIEW, buf, total, &rj);
    Py_END_ALLOW_THREADS
    const urisan_judgement *j = &rj.j;
    bool ok = rj.reason == URISAN_REQUEST_OK;
    PyObject *o = uri_dict(Py_None, ok ? buf : "", ok ? rj.uri_len : 0, LEVEL_CHECK, &j->uri,
                           &j->rep, &j->dec, pol, NULL, j->hv);
    free(buf);
    if (o == NULL)
        return NULL;
    if (!ok) {
        const char *why = urisan_request_reason_name(rj.reason);
        if (put(o, "uri", Py_NewRef(Py_None)) < 0 ||
            put(o, "reasons", Py_BuildValue("[s]", why)) < 0 ||
            put(o, "deny_reasons", Py_BuildValue("[s]", why)) < 0 ||
            put(o, "request_reason", name_str(why)) < 0) {
            Py_DECREF(o);
            return NULL;
        }
    } else if (put(o, "request_reason", Py_NewRef(Py_None)) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}
#endif

static PyObject *py_analyse(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    return do_uri(args, kw, LEVEL_ANALYSE, "analyse");
}

static PyObject *py_parse(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    return do_uri(args, kw, LEVEL_PARSE, "parse");
}

/* The verdict alone: no dictionary (the fast path for bulk use). */
static PyObject *py_verdict(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"uri", "policy", NULL};
    PyObject *uri_obj, *pol_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:verdict", kwlist, &uri_obj, &pol_obj))
        return NULL;
    in_text t;
    const urisan_policy *pol;
    if (get_text(uri_obj, &t, "uri") < 0 || get_policy(pol_obj, &pol) < 0)
        return NULL;
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    Py_BEGIN_ALLOW_THREADS
    decide(t.p, (size_t)t.n, pol, &u, &r, &d, NULL);
    Py_END_ALLOW_THREADS
    return name_str(urisan_verdict_name(d.verdict));
}

/* ------------------------------------------------------------------ */
/* resolve / normalize / equivalent                                    */
/* ------------------------------------------------------------------ */


static int get_above_root(const char *s, urisan_above_root *out)
{
    if (strcmp(s, "clamp") == 0)
        *out = URISAN_ABOVE_ROOT_CLAMP;
    else if (strcmp(s, "keep") == 0)
        *out = URISAN_ABOVE_ROOT_KEEP;
    else if (strcmp(s, "reject") == 0)
        *out = URISAN_ABOVE_ROOT_REJECT;
    else {
        PyErr_Format(PyExc_ValueError,
                     "above_root must be 'clamp', 'keep' or 'reject', not '%s'", s);
        return -1;
    }
    return 0;
}

/* Call f until the buffer fits what it reports (twice at most). */
typedef urisan_status (*fill_fn)(void *ctx, char *buf, size_t cap, size_t *needed,
                                 urisan_error *err);

static PyObject *fill(fill_fn f, void *ctx, int is_bytes)
{
    size_t cap = 256, needed = 0;
    urisan_error err = { URISAN_OK, 0, 0 };
    for (int round = 0; round < 2; round++) {
        char *buf = malloc(cap);
        if (buf == NULL)
            return PyErr_NoMemory();
        urisan_status st;
        Py_BEGIN_ALLOW_THREADS
        st = f(ctx, buf, cap, &needed, &err);
        Py_END_ALLOW_THREADS
        if (st == URISAN_OK) {
            PyObject *o = typed_out(buf, needed, is_bytes);
            free(buf);
            return o;
        }
        free(buf);
        if (st != URISAN_E_NOSPACE || needed + 1 > OUT_MAX)
            break;
        cap = needed + 1;
    }
    return raise_error(&err);
}

typedef struct {
    in_text base, ref;
    urisan_resolve_opts opt;
} resolve_ctx;

static urisan_status resolve_fill(void *ctx, char *buf, size_t cap, size_t *needed,
                                  urisan_error *err)
{
    resolve_ctx *c = ctx;
    return urisan_resolve(c->base.p, (size_t)c->base.n, c->ref.p, (size_t)c->ref.n, &c->opt,
                          buf, cap, needed, NULL, err);
}

static PyObject *py_resolve(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"base", "ref", "non_strict", "above_root", "policy", NULL};
    PyObject *b, *r, *pol_obj = Py_None;
    int non_strict = 0;
    const char *above = "clamp";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$psO:resolve", kwlist, &b, &r,
                                     &non_strict, &above, &pol_obj))
        return NULL;
    resolve_ctx c;
    const urisan_policy *pol;
    if (get_text(b, &c.base, "base") < 0 || get_text(r, &c.ref, "ref") < 0 ||
        get_above_root(above, &c.opt.above_root) < 0 || get_policy(pol_obj, &pol) < 0)
        return NULL;
    c.opt.non_strict = non_strict;
    c.opt.limits = pol ? urisan_policy_limits(pol) : NULL;
    return fill(resolve_fill, &c, c.ref.is_bytes);
}

typedef struct {
    in_text in;
    const urisan_limits *lim;
} norm_ctx;

static urisan_status norm_fill(void *ctx, char *buf, size_t cap, size_t *needed,
                               urisan_error *err)
{
    norm_ctx *c = ctx;
    return urisan_normalize(c->in.p, (size_t)c->in.n, c->lim, buf, cap, needed, err);
}

static PyObject *py_normalize(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"uri", "policy", NULL};
    PyObject *u, *pol_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:normalize", kwlist, &u, &pol_obj))
        return NULL;
    norm_ctx c;
    const urisan_policy *pol;
    if (get_text(u, &c.in, "uri") < 0 || get_policy(pol_obj, &pol) < 0)
        return NULL;
    c.lim = pol ? urisan_policy_limits(pol) : NULL;
    return fill(norm_fill, &c, c.in.is_bytes);
}

static PyObject *py_equivalent(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"a", "b", "policy", NULL};
    PyObject *ao, *bo, *pol_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$O:equivalent", kwlist, &ao, &bo, &pol_obj))
        return NULL;
    in_text a, b;
    const urisan_policy *pol;
    if (get_text(ao, &a, "a") < 0 || get_text(bo, &b, "b") < 0 || get_policy(pol_obj, &pol) < 0)
        return NULL;
    const urisan_limits *lim = pol ? urisan_policy_limits(pol) : NULL;
    size_t cap = 512, needed = 0;
    int equal = 0;
    urisan_error err = { URISAN_OK, 0, 0 };
    for (int round = 0; round < 2; round++) {
        char *work = malloc(cap);
        if (work == NULL)
            return PyErr_NoMemory();
        urisan_status st;
        Py_BEGIN_ALLOW_THREADS
        st = urisan_equivalent(a.p, (size_t)a.n, b.p, (size_t)b.n, lim, work, cap,
                               &needed, &equal, &err);
        Py_END_ALLOW_THREADS
        free(work);
        if (st == URISAN_OK)
            return PyBool_FromLong(equal);
        if (st != URISAN_E_NOSPACE || needed + 1 > OUT_MAX)
            break;
        cap = needed + 1;
    }
    return raise_error(&err);
}

/* ------------------------------------------------------------------ */
/* extract                                                             */
/* ------------------------------------------------------------------ */

#define HIT_BATCH 64

/* The dict of one link's row (urisan.h "The row of one link found,
   described once"): the library's keys, as `urisan extract --json`
   writes them, less the command's own (message, explain, resolve) and
   the host's forms (when 0). */
static PyObject *row_dict(const urisan_link_row *row)
{
    size_t n;
    const urisan_result_key *keys = urisan_link_row_keys(&n);
    PyObject *o = PyDict_New();
    for (size_t i = 0; o != NULL && i < n; i++) {
        const urisan_result_key *k = &keys[i];
        if (k->when != 0 || !urisan_link_row_present(row, k))
            continue;
        urisan_rvalue v;
        urisan_link_row_value(row, k, &v);
        if (put(o, k->name, value_out(&v)) < 0)
            Py_CLEAR(o);
    }
    return o;
}

#ifdef URISAN_HAVE_MAIL
/* ---- a mail message: liburisan-mail, the rows of extract --mail --json ---- */

typedef struct {
    PyObject *list;
    bool failed;         /* a Python error is set */
} mail_rows;

static bool mail_row_add(mail_rows *r, const urisan_link_row *row)
{
    PyObject *o = row_dict(row);
    if (o == NULL || PyList_Append(r->list, o) < 0) {
        Py_XDECREF(o);
        r->failed = true;
        return false;
    }
    Py_DECREF(o);
    return true;
}

static bool on_mail_hit(void *ctx, const urisan_mail_hit *hit)
{
    urisan_link_row row;
    urisan_mail_hit_row(&row, hit);   /* decided once (LINK_HOOKS) */
    return mail_row_add(ctx, &row);
}

/* A limit reached: a row of its own, as extract --mail writes it. */
static bool on_mail_diag(void *ctx, const urisan_mail_diag *dg)
{
    urisan_link_row row;
    urisan_mail_diag_row(&row, dg);
    return mail_row_add(ctx, &row);
}

/* The rows of the message data[0..len), or NULL with an exception. */
static PyObject *mail_scan_rows(const char *data, size_t len, const urisan_policy *pol)
{
    mail_rows r = { PyList_New(0), false };
    if (r.list == NULL)
        return NULL;
    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    urisan_mail_sink sink = { on_mail_hit, on_mail_diag, &r };
    urisan_mail_result res;
    /* the callbacks build Python objects: the GIL is held */
    urisan_mail_status st = urisan_mail_scan_with(data, len, pol, &lim, LINK_HOOKS, &sink, &res);
    if (r.failed) {
        Py_DECREF(r.list);
        return NULL;
    }
    if (st == URISAN_MAIL_NOT_MESSAGE || st == URISAN_MAIL_NOMEM) {
        Py_DECREF(r.list);
        if (st == URISAN_MAIL_NOMEM)
            return PyErr_NoMemory();
        PyErr_SetString(PyExc_ValueError, "the input is not a mail message");
        return NULL;
    }
    return r.list;
}
#endif

/* extract_mail(data, *, policy=None) -> the rows of extract --mail --json */
static PyObject *py_extract_mail(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"data", "policy", NULL};
    PyObject *to, *pol_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:extract_mail", kwlist, &to, &pol_obj))
        return NULL;
#ifdef URISAN_HAVE_MAIL
    in_text t;
    const urisan_policy *pol;
    if (get_text(to, &t, "data") < 0 || get_policy(pol_obj, &pol) < 0)
        return NULL;
    return mail_scan_rows(t.p, (size_t)t.n, pol);
#else
    PyErr_SetString(PyExc_NotImplementedError,
                    "extract_mail: urisan was built without liburisan-mail (meson option 'mail')");
    return NULL;
#endif
}

static PyObject *py_extract(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"text", "policy", "mail", NULL};
    PyObject *to, *pol_obj = Py_None;
    int mail = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$Op:extract", kwlist, &to, &pol_obj, &mail))
        return NULL;
    if (mail) {
        PyObject *a = PyTuple_Pack(1, to);
        PyObject *k = a == NULL ? NULL : Py_BuildValue("{s:O}", "policy", pol_obj);
        PyObject *rows = k == NULL ? NULL : py_extract_mail(m, a, k);
        Py_XDECREF(a);
        Py_XDECREF(k);
        return rows;
    }
    in_text t;
    const urisan_policy *pol;
    if (get_text(to, &t, "text") < 0 || get_policy(pol_obj, &pol) < 0)
        return NULL;
    size_t scap = urisan_extract_scratch_size(pol);
    char *scratch = malloc(scap);
    urisan_hit *hits = malloc(HIT_BATCH * sizeof *hits);
    PyObject *list = PyList_New(0);
#ifdef URISAN_HAVE_HOST
    /* each hit kept, then decided as the URI a browser opens for it
       (urisan_judge_text_link), as `urisan extract` decides */
    urisan_link_keeper keep = { malloc(HIT_BATCH * sizeof(urisan_link_facts)), HIT_BATCH, 0 };
    const urisan_link_hooks keep_hooks = { urisan_link_keep, &keep };
    const urisan_link_hooks *hooks = &keep_hooks;
    if (keep.facts == NULL) {
        Py_XDECREF(list);
        list = NULL;
    }
#else
    const urisan_link_hooks *hooks = LINK_HOOKS;
#endif
    if (scratch == NULL || hits == NULL || list == NULL) {
        if (list != NULL)
            PyErr_NoMemory();
        goto fail;
    }
    size_t start = 0, len = (size_t)t.n;
    for (;;) {
        size_t n = 0, next = start;
        urisan_status st;
        Py_BEGIN_ALLOW_THREADS
#ifdef URISAN_HAVE_HOST
        keep.n = 0;
#endif
        st = urisan_extract_with(t.p, len, start, 0, pol, hooks, hits, HIT_BATCH, &n,
                                 scratch, scap, &next);
        Py_END_ALLOW_THREADS
        for (size_t k = 0; k < n; k++) {
            urisan_link_row row;
#ifdef URISAN_HAVE_HOST
            /* a link written in Unicode: its uri the URI opened, the text
               as written kept */
            const char *written = NULL;
            size_t written_len = 0;
            char *opened = urisan_judge_text_link(&link_judge, pol, &hits[k], &keep.facts[k],
                                                  &written, &written_len);
            urisan_link_row_hit(&row, &hits[k]);
            row.written = written;
            row.written_len = written_len;
            PyObject *d = row_dict(&row);
            free(opened);
#else
            urisan_link_row_hit(&row, &hits[k]);
            PyObject *d = row_dict(&row);
#endif
            if (d == NULL || PyList_Append(list, d) < 0) {
                Py_XDECREF(d);
                goto fail;
            }
            Py_DECREF(d);
        }
        if (st == URISAN_OK)
            break;
        if (st != URISAN_E_TOO_MANY || next <= start) {
            urisan_error e = { st, next, 0 };
            raise_error(&e);
            goto fail;
        }
        start = next;
    }
    free(scratch);
    free(hits);
#ifdef URISAN_HAVE_HOST
    free(keep.facts);
#endif
    return list;
fail:
    free(scratch);
    free(hits);
#ifdef URISAN_HAVE_HOST
    free(keep.facts);
#endif
    Py_XDECREF(list);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Module                                                              */
/* ------------------------------------------------------------------ */

static PyObject *py_version(PyObject *m, PyObject *Py_UNUSED(ignored))
{
    (void)m;
    return PyUnicode_FromString(urisan_version());
}

static PyObject *py_flag_names(PyObject *m, PyObject *Py_UNUSED(ignored))
{
    (void)m;
    return flags_out(~(urisan_flags)0);
}

/* _check_loop(urls, policy=None) -> seconds: check's decision over every
   item (str or bytes) inside C, no Python between the calls; the baseline
   of python/bench.py (the C call's cost in the same process). */
static PyObject *py_check_loop(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"urls", "policy", NULL};
    PyObject *seq, *pol_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:_check_loop", kwlist, &seq, &pol_obj))
        return NULL;
    const urisan_policy *pol;
    if (get_policy(pol_obj, &pol) < 0)
        return NULL;
    PyObject *fast = PySequence_Fast(seq, "urls must be a sequence");
    if (fast == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    in_text *ts = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *ts);
    if (ts == NULL) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (get_text(PySequence_Fast_GET_ITEM(fast, i), &ts[i], "url") < 0) {
            PyMem_Free(ts);
            Py_DECREF(fast);
            return NULL;
        }
    }
    urisan_uri u;
    urisan_report r;
    urisan_decision d;
    unsigned deny = 0;
    PyObject *clock = PyImport_ImportModule("time");
    PyObject *t0 = clock ? PyObject_CallMethod(clock, "perf_counter", NULL) : NULL;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        decide(ts[i].p, (size_t)ts[i].n, pol, &u, &r, &d, NULL);
        deny += d.verdict == URISAN_DENY;
    }
    Py_END_ALLOW_THREADS
    PyObject *t1 = clock ? PyObject_CallMethod(clock, "perf_counter", NULL) : NULL;
    PyMem_Free(ts);
    Py_DECREF(fast);
    PyObject *res = NULL;
    if (t0 != NULL && t1 != NULL)
        res = Py_BuildValue("(dI)", PyFloat_AsDouble(t1) - PyFloat_AsDouble(t0), deny);
    Py_XDECREF(t0);
    Py_XDECREF(t1);
    Py_XDECREF(clock);
    return res;
}

static PyMethodDef methods[] = {
    {"_check_loop", (PyCFunction)(void (*)(void))py_check_loop, METH_VARARGS | METH_KEYWORDS,
     "_check_loop(urls, *, policy=None) -> (seconds, denied): check's decision over urls in C."},
    {"check", (PyCFunction)(void (*)(void))py_check, METH_VARARGS | METH_KEYWORDS,
     "check(uri, *, base=None, policy=None) -> dict: what `urisan check --json [--base BASE]` "
     "prints for uri."},
#ifdef URISAN_HAVE_HOST
    {"check_request", (PyCFunction)(void (*)(void))py_check_request, METH_VARARGS | METH_KEYWORDS,
     "check_request(*, scheme=None, host=None, target=None, method=None, policy=None, "
     "headers=None, trust=None, strip_prefix=None) -> dict: check's dict for the URI the "
     "origin receives, rebuilt from a request's parts (request_reason: the part rejected)."},
#endif
    {"analyse", (PyCFunction)(void (*)(void))py_analyse, METH_VARARGS | METH_KEYWORDS,
     "analyse(uri, *, policy=None) -> dict: uri, valid, error, components, host_ip, flags."},
    {"analyze", (PyCFunction)(void (*)(void))py_analyse, METH_VARARGS | METH_KEYWORDS,
     "analyze(uri, *, policy=None): the same as analyse()."},
    {"parse", (PyCFunction)(void (*)(void))py_parse, METH_VARARGS | METH_KEYWORDS,
     "parse(uri, *, policy=None) -> dict: uri, valid, error, components."},
    {"verdict", (PyCFunction)(void (*)(void))py_verdict, METH_VARARGS | METH_KEYWORDS,
     "verdict(uri, *, policy=None) -> 'allow' | 'flag' | 'deny', without a dict."},
    {"resolve", (PyCFunction)(void (*)(void))py_resolve, METH_VARARGS | METH_KEYWORDS,
     "resolve(base, ref, *, non_strict=False, above_root='clamp', policy=None) -> str|bytes."},
    {"normalize", (PyCFunction)(void (*)(void))py_normalize, METH_VARARGS | METH_KEYWORDS,
     "normalize(uri, *, policy=None) -> str|bytes: the RFC 3986 6.2.2/6.2.3 normal form."},
    {"equivalent", (PyCFunction)(void (*)(void))py_equivalent, METH_VARARGS | METH_KEYWORDS,
     "equivalent(a, b, *, policy=None) -> bool: equal after normalisation."},
    {"extract", (PyCFunction)(void (*)(void))py_extract, METH_VARARGS | METH_KEYWORDS,
     "extract(text, *, policy=None, mail=False) -> list of dict: what `urisan extract --json` "
     "prints (mail=True: extract_mail)."},
    {"extract_mail", (PyCFunction)(void (*)(void))py_extract_mail, METH_VARARGS | METH_KEYWORDS,
     "extract_mail(data, *, policy=None) -> list of dict: the links of a mail message, as "
     "`urisan extract --mail --json` gives them."},
    {"version", py_version, METH_NOARGS, "version() -> str: urisan_version() of the library."},
    {"flag_names", py_flag_names, METH_NOARGS, "flag_names() -> list of every flag name, bit order."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "urisan",
    "Defensive RFC 3986 URI checks (liburisan); see doc/python.md.",
    -1, methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit_urisan(void);
PyMODINIT_FUNC PyInit_urisan(void)
{
#ifdef URISAN_HAVE_MAIL
    /* the readers of binary attachments when not installed (the build
       tree's, as the tests run it): the library reads no environment */
    const char *readers = getenv("URISAN_READERS");
    if (readers != NULL && readers[0] != '\0')
        (void)urisan_mail_set_readers(readers);
#endif
    if (PyType_Ready(&PolicyType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    UrisanError = PyErr_NewExceptionWithDoc("urisan.Error",
        "A URI the library refused: .code (e.g. 'above_root'), .offset, .input "
        "(0: the first URI, 1: the second).", PyExc_ValueError, NULL);
    PolicyError = UrisanError == NULL ? NULL : PyErr_NewExceptionWithDoc("urisan.PolicyError",
        "A policy text with a mistake: str() is 'NAME:LINE: message', .line.", UrisanError, NULL);
    if (PolicyError == NULL ||
        PyModule_AddObjectRef(m, "Error", UrisanError) < 0 ||
        PyModule_AddObjectRef(m, "PolicyError", PolicyError) < 0 ||
        PyModule_AddObjectRef(m, "Policy", (PyObject *)&PolicyType) < 0 ||
        PyModule_AddStringConstant(m, "__version__", urisan_version()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
