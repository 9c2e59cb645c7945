/*
 * urisan_lua.c - the urisan Lua module (doc/lua.md): check, verdict,
 * parse, normalize, resolve, equivalent and extract over liburisan, for
 * LuaJIT / Lua 5.1 (nginx's lua-nginx-module, rspamd), Lua 5.3 (HAProxy)
 * and Lua 5.4, from this one source.
 *
 *   local urisan = require "urisan"
 *   local p = urisan.policy{ profile = "ssrf", file = "/etc/urisan/site.policy" }
 *   local r = urisan.check(uri, { policy = p })   -- check --json's keys
 *
 * A front end: it reads arguments, calls the library's one decision and
 * builds tables; it never sets a flag or decides. Nothing here is global:
 * the scratch buffers live in a per-state context (an upvalue of every
 * function, freed with the state); a policy is a userdata built once and
 * read-only after, so one object serves every request of a state.
 * Bounded on hostile input: the library reads at most the policy's
 * max_uri bytes of a URI, output buffers are capped (OUT_MAX), and every
 * argument is type-checked before use (a wrong type is a Lua error that
 * names the argument, never a crash).
 */
#define _POSIX_C_SOURCE 200809L
#include <lauxlib.h>
#include <lua.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urisan.h"
#ifdef URISAN_HAVE_HOST_LAYER
#include "urisan_host.h"
#endif
#ifdef URISAN_HAVE_MAIL
#include "urisan_mail.h"
#endif

/* ---- one source for Lua 5.1 (LuaJIT), 5.3 and 5.4 ---- */
#if LUA_VERSION_NUM < 502
#define lu_rawlen(L, i) lua_objlen((L), (i))
#else
#define lu_rawlen(L, i) lua_rawlen((L), (i))
#endif

#define POLICY_MT "urisan.policy"
#define CTX_MT "urisan.context"
/* The largest text the module asks the library to write (resolve,
   normalize): the library's own ceiling, with room for what a
   normalisation may add. */
#define OUT_MAX (4 * URISAN_HARD_CEILING + 64)
/* A policy file larger than this is refused (the command's bound). */
#define POLICY_FILE_MAX (16u << 20)
#define HIT_BATCH 64

/* The per-state context: growable scratch, reused by every call of the
   state (a C function runs to its end before another starts in that
   state: nothing here is shared between states or threads). */
typedef struct {
    char *buf;
    size_t cap;
#ifdef URISAN_HAVE_HOST_LAYER
    urisan_host_ctx *host;   /* the host layer's context: its memo of hosts */
    char *opened;            /* the last URI opened for a link of extract
                                (urisan_judge_text_link): freed by the next
                                one and at collection, so a Lua error while
                                its hit is pushed leaks nothing */
#endif
} lu_ctx;

typedef struct {
    urisan_policy *pol;  /* malloc'd: urisan_policy wants max_align_t */
} lu_policy;

/* ------------------------------------------------------------------ */
/* Arguments                                                           */
/* ------------------------------------------------------------------ */

static lu_ctx *ctx_of(lua_State *L)
{
    return (lu_ctx *)lua_touserdata(L, lua_upvalueindex(1));
}

/* ctx->buf with at least n bytes; NULL when n is beyond OUT_MAX or
   memory is short (the caller raises). */
static char *ctx_room(lu_ctx *c, size_t n)
{
    if (n > OUT_MAX)
        return NULL;
    if (n <= c->cap && c->buf != NULL)
        return c->buf;
    size_t cap = c->cap < 256 ? 256 : c->cap;
    while (cap < n)
        cap *= 2;
    char *p = realloc(c->buf, cap);
    if (p == NULL)
        return NULL;
    c->buf = p;
    c->cap = cap;
    return p;
}

static int ctx_gc(lua_State *L)
{
    lu_ctx *c = (lu_ctx *)luaL_checkudata(L, 1, CTX_MT);
    free(c->buf);
    c->buf = NULL;
    c->cap = 0;
#ifdef URISAN_HAVE_HOST_LAYER
    free(c->opened);
    c->opened = NULL;
    urisan_host_ctx_free(c->host);
    c->host = NULL;
#endif
    return 0;
}

/* The policy userdata at idx, or NULL when idx is no policy. */
static lu_policy *test_policy(lua_State *L, int idx)
{
    lu_policy *p = (lu_policy *)lua_touserdata(L, idx);
    if (p == NULL || !lua_getmetatable(L, idx))
        return NULL;
    luaL_getmetatable(L, POLICY_MT);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? p : NULL;
}

/* A policy word for a message, as the command prints it: printable
   ASCII as is, else \xNN; at most 80 bytes. */
static void add_word(luaL_Buffer *b, const char *w, size_t n)
{
    if (n > 80)
        n = 80;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)w[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\'') {
            luaL_addchar(b, (char)ch);
        } else {
            char hex[5];
            snprintf(hex, sizeof hex, "\\x%02x", ch);
            luaL_addstring(b, hex);
        }
    }
}

/* Every key of the options table at idx is one of keys (NULL-ended):
   else an error that names the key and the keys there are (a typo is no
   silent default: urisan.verdict(u, {polcy = p}) must not decide under
   the default policy). */
static void check_keys(lua_State *L, int idx, const char *fname, const char *const *keys)
{
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        bool known = false;
        if (lua_type(L, -2) == LUA_TSTRING) {
            const char *k = lua_tostring(L, -2);
            for (size_t i = 0; keys[i] != NULL && !known; i++)
                known = strcmp(k, keys[i]) == 0;
        }
        if (!known) {
            /* the key's text before the buffer takes stack slots */
            size_t n = 0;
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &n)
                                                           : luaL_typename(L, -2);
            if (lua_type(L, -2) != LUA_TSTRING)
                n = strlen(k);
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            luaL_addstring(&b, "urisan.");
            luaL_addstring(&b, fname);
            luaL_addstring(&b, ": unknown option '");
            add_word(&b, k, n);
            luaL_addstring(&b, "' (");
            for (size_t i = 0; keys[i] != NULL; i++) {
                if (i > 0)
                    luaL_addstring(&b, ", ");
                luaL_addstring(&b, keys[i]);
            }
            luaL_addchar(&b, ')');
            luaL_pushresult(&b);
            lua_error(L);
        }
        lua_pop(L, 1);
    }
}

static const char *const keys_policy[] = { "policy", NULL };
static const char *const keys_base[] = { "policy", "base", NULL };
static const char *const keys_resolve[] = { "policy", "non_strict", "above_root", NULL };

/* The options argument at idx: nil (defaults), a policy, or a table
   {policy = P, base = "..."} with only the keys given (check_keys).
   *base is set when the table has one. */
static const urisan_policy *get_opts(lua_State *L, int idx, const char *fname,
                                     const char *const *keys, const char **base, size_t *blen)
{
    if (base != NULL)
        *base = NULL;
    if (lua_isnoneornil(L, idx))
        return NULL;
    lu_policy *p = test_policy(L, idx);
    if (p != NULL)
        return p->pol;
    if (!lua_istable(L, idx))
        luaL_argerror(L, idx, "expected nil, a urisan.policy or an options table");
    check_keys(L, idx, fname, keys);
    lua_getfield(L, idx, "policy");
    const urisan_policy *pol = NULL;
    if (!lua_isnil(L, -1)) {
        p = test_policy(L, -1);
        if (p == NULL)
            luaL_argerror(L, idx, "options.policy: expected a urisan.policy");
        pol = p->pol;
    }
    lua_pop(L, 1);
    if (base != NULL) {
        lua_getfield(L, idx, "base");
        if (!lua_isnil(L, -1)) {
            if (lua_type(L, -1) != LUA_TSTRING)
                luaL_argerror(L, idx, "options.base: expected a string");
            *base = lua_tolstring(L, -1, blen);   /* kept alive by the table */
        }
        lua_pop(L, 1);
    }
    return pol;
}

/* A string argument, never a number converted in place (a number
   argument is refused: luaL_checklstring would change the value on the
   stack, and a URI is text). */
static const char *get_text(lua_State *L, int idx, size_t *len)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_argerror(L, idx, lua_pushfstring(L, "string expected, got %s",
                                              luaL_typename(L, idx)));
    return lua_tolstring(L, idx, len);
}

/* Raise "urisan: CODE at offset N: MESSAGE" for a library error. */
static int raise_status(lua_State *L, const char *what, const urisan_error *e)
{
    return luaL_error(L, "urisan.%s: %s at offset %d: %s%s", what,
                      urisan_status_name(e->code), (int)(e->offset > 0x7fffffff ? 0x7fffffff : e->offset),
                      urisan_status_message(e->code),
                      e->input == 1 ? " (in the reference)" : "");
}

/* ------------------------------------------------------------------ */
/* Values as check --json writes them                                  */
/* ------------------------------------------------------------------ */

/* urisan.null: JSON's null in a table (a key whose value is null is
   present, as in the JSON). The NULL light userdata, as cjson.null and
   ngx.null are, so the three compare equal. */
static void push_null(lua_State *L)
{
    lua_pushlightuserdata(L, NULL);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    if (v == NULL)
        push_null(L);
    else
        lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

/* {code, offset, message}, or null (cli_jv_error). */
static void push_error(lua_State *L, const urisan_error *e)
{
    if (e == NULL || e->code == URISAN_OK) {
        push_null(L);
        return;
    }
    lua_createtable(L, 0, 3);
    set_str(L, "code", urisan_status_name(e->code));
    lua_pushinteger(L, (lua_Integer)e->offset);
    lua_setfield(L, -2, "offset");
    set_str(L, "message", urisan_status_message(e->code));
}

/* The names of the set bits of f, in bit order, appended to the array
   at the top from index *n + 1. */
static void append_flags(lua_State *L, urisan_flags f, int *n)
{
    while (f != 0) {
        unsigned bit = (unsigned)__builtin_ctzll(f);
        f &= f - 1;
        const char *name = urisan_flag_name((urisan_flag)bit);
        if (name == NULL)
            continue;
        lua_pushstring(L, name);
        lua_rawseti(L, -2, ++*n);
    }
}

static void append_rules(lua_State *L, unsigned rules, int *n)
{
    for (unsigned r = 0; r < URISAN_REASON_COUNT_; r++) {
        if (!((rules >> r) & 1u))
            continue;
        lua_pushstring(L, urisan_rule_reason_name((urisan_rule_reason)r));
        lua_rawseti(L, -2, ++*n);
    }
}

static void push_flags(lua_State *L, urisan_flags f)
{
    int n = 0;
    lua_createtable(L, __builtin_popcountll(f), 0);
    append_flags(L, f, &n);
}

/* ------------------------------------------------------------------ */
/* check, verdict, parse                                               */
/* ------------------------------------------------------------------ */

/* What the one decision gave for one URI. */
typedef struct {
    urisan_uri uri;
    urisan_report rep;
    urisan_decision dec;
    const char *resolved;   /* with a base: the resolved URI, or NULL */
    size_t rlen;
    urisan_error rerr;
#ifdef URISAN_HAVE_HOST_LAYER
    const urisan_hostview *hv;  /* the host as a reader sees it, or NULL */
    bool host_name;
#endif
} judgement;

/* Fail closed: a decision that could not be made is a deny. */
static void judge_init(judgement *j)
{
    memset(&j->dec, 0, sizeof j->dec);
    j->dec.verdict = URISAN_DENY;
    j->resolved = NULL;
    j->rlen = 0;
    j->rerr = (urisan_error){ URISAN_OK, 0, 0 };
#ifdef URISAN_HAVE_HOST_LAYER
    j->hv = NULL;
    j->host_name = false;
#endif
}

#ifdef URISAN_HAVE_HOST_LAYER
/* The one decision, the host layer's: urisan_judge, or with a base
   urisan_judge_base (the reference judged by where it leads, the resolved
   text in the context's buffer). view: the host's view is wanted (check's
   host keys). */
static void judge(lua_State *L, lu_ctx *c, const char *in, size_t len, const char *base,
                  size_t blen, const urisan_policy *pol, int view, judgement *j)
{
    judge_init(j);
    unsigned opts = view ? URISAN_JUDGE_VIEW : 0;
    urisan_judgement hj;
    if (base == NULL) {
        urisan_judge(c->host, in, len, pol, opts, &hj);
    } else {
        size_t cap = 256, needed = 0;
        urisan_status st = URISAN_E_NOSPACE;
        for (int round = 0; round < 2 && st == URISAN_E_NOSPACE; round++) {
            char *buf = ctx_room(c, cap);
            if (buf == NULL)
                luaL_error(L, "urisan.check: out of memory");
            st = urisan_judge_base(c->host, base, blen, in, len, pol, opts, buf, cap, &needed,
                                   &hj, &j->rerr);
            if (st == URISAN_OK) {
                j->resolved = buf;
                j->rlen = needed;
            }
            cap = needed + 1;
        }
    }
    j->uri = hj.uri;
    j->rep = hj.rep;
    j->dec = hj.dec;
    j->hv = hj.hv;
    j->host_name = hj.host_name;
}
#else
/* The one decision without the host layer: the library's urisan_check,
   or urisan_check_base with a base (the resolved text in the context's
   buffer). */
static void judge(lua_State *L, lu_ctx *c, const char *in, size_t len, const char *base,
                  size_t blen, const urisan_policy *pol, int view, judgement *j)
{
    (void)view;
    judge_init(j);
    if (base == NULL) {
        urisan_check(in, len, pol, &j->uri, &j->rep, &j->dec);
        return;
    }
    size_t cap = 256, needed = 0;
    urisan_status st = URISAN_E_NOSPACE;
    for (int round = 0; round < 2 && st == URISAN_E_NOSPACE; round++) {
        char *buf = ctx_room(c, cap);
        if (buf == NULL)
            luaL_error(L, "urisan.check: out of memory");
        st = urisan_check_base(base, blen, in, len, pol, buf, cap, &needed, &j->uri, &j->rep,
                               &j->dec, &j->rerr);
        if (st == URISAN_OK) {
            j->resolved = buf;
            j->rlen = needed;
        }
        cap = needed + 1;
    }
}
#endif

/* ---- a result's keys (urisan.h "The result of one URI, described
   once"): the library's list, walked ---- */

static void push_names(lua_State *L, const urisan_rvalue *v)
{
    int n = 0;
    lua_newtable(L);
    append_flags(L, v->first, &n);
    append_rules(L, v->rules, &n);
    append_flags(L, v->last, &n);
}

/* The names of the URISAN_HIT_* bits of form, an array (a row's "form"). */
static void push_forms(lua_State *L, uint64_t form)
{
    lua_newtable(L);
    int n = 0;
    const char *name;
    for (unsigned bit = 0; (name = urisan_hit_form_name(bit)) != NULL; bit++) {
        if ((form >> bit) & 1u) {
            lua_pushstring(L, name);
            lua_rawseti(L, -2, ++n);
        }
    }
}

static void push_value(lua_State *L, const urisan_rvalue *v)
{
    switch (v->kind) {
    case URISAN_RV_FORMS: push_forms(L, v->u); return;
    case URISAN_RV_BOOL: lua_pushboolean(L, v->b); return;
    case URISAN_RV_UINT: lua_pushinteger(L, (lua_Integer)v->u); return;
    case URISAN_RV_TEXT:
    case URISAN_RV_NAME: lua_pushlstring(L, v->s, v->n); return;
    case URISAN_RV_NAMES: push_names(L, v); return;
    case URISAN_RV_ERROR: push_error(L, &v->err); return;
    default: push_null(L); return;
    }
}

/* The table of the keys sub[0..n) of r, or of the nested URL nu. */
static void push_object(lua_State *L, const urisan_result *r, const urisan_nested_url *nu,
                        urisan_flags flags, const urisan_result_key *sub, size_t n)
{
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        urisan_rvalue v;
        if (nu != NULL)
            urisan_nested_value(nu, flags, &sub[i], &v);
        else
            urisan_result_value(r, &sub[i], &v);
        push_value(L, &v);
        lua_setfield(L, -2, sub[i].name);
    }
}

typedef struct {
    lua_State *L;
    const urisan_result_key *k;
    int n;
} nested_walk;

static void nested_one(void *ctx, const urisan_nested_url *nu, urisan_flags flags)
{
    nested_walk *w = ctx;
    push_object(w->L, NULL, nu, flags, w->k->sub, w->k->nsub);
    lua_rawseti(w->L, -2, ++w->n);
}

static void push_key(lua_State *L, const urisan_result *r, const urisan_result_key *k)
{
    urisan_rvalue v;
    urisan_result_value(r, k, &v);
    if (v.kind == URISAN_RV_OBJECT) {
        push_object(L, r, NULL, 0, k->sub, k->nsub);
    } else if (v.kind == URISAN_RV_NESTED) {
        nested_walk w = { L, k, 0 };
        lua_newtable(L);
        urisan_result_nested(r, nested_one, &w);
    } else {
        push_value(L, &v);
    }
}

/* The table of check --json for in[0..len): the keys of the library's
   list of stage up to stage (0: parse's). */
static void push_result(lua_State *L, const char *in, size_t len, const judgement *j,
                        const urisan_policy *pol, int with_base, unsigned stage)
{
    urisan_result res = {
        .in = in, .len = len, .full_len = len, .truncated = 0, .uri = &j->uri,
        .rep = &j->rep, .dec = &j->dec, .pol = pol, .resolved = j->resolved, .rlen = j->rlen,
        .rerr = j->rerr,
    };
    unsigned mode = with_base ? URISAN_RK_BASE : 0;
#ifdef URISAN_HAVE_HOST_LAYER
    mode |= URISAN_RK_HOST;
    urisan_result_host(&res, ctx_of(L)->host, j->hv, 0);
#endif
    size_t n;
    const urisan_result_key *keys = urisan_result_keys(&n);
    lua_createtable(L, 0, 16);
    for (size_t i = 0; i < n; i++) {
        const urisan_result_key *k = &keys[i];
        if (k->stage > stage || (k->when & mode) != k->when || k->shown == URISAN_RS_NAMED ||
            !urisan_result_present(&res, k))
            continue;
        push_key(L, &res, k);
        lua_setfield(L, -2, k->name);
    }
}

/* urisan.check(uri [, opts]) -> table with the keys of check --json */
static int l_check(lua_State *L)
{
    size_t len, blen = 0;
    const char *in = get_text(L, 1, &len);
    const char *base;
    const urisan_policy *pol = get_opts(L, 2, "check", keys_base, &base, &blen);
    judgement j;
    judge(L, ctx_of(L), in, len, base, blen, pol, 1, &j);
    push_result(L, in, len, &j, pol, base != NULL, 2);
    return 1;
}

#ifdef URISAN_HAVE_HOST_LAYER
/* An optional string of the request table (NULL when nil); its length
   is added to *total (the room the rebuilt URI may need). */
static const char *req_str(lua_State *L, const char *k, size_t *len, size_t *total)
{
    *len = 0;
    lua_getfield(L, 1, k);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "urisan.check_request: %s: expected a string, got %s", k,
                   luaL_typename(L, -1));
    const char *p = lua_tolstring(L, -1, len);
    lua_pop(L, 1);   /* still referenced by the table */
    *total += *len;
    return p;
}

/* One header field of the value at the top of the stack: a string, or a
   list of the values received (more than one: the field came twice). */
static void req_field(lua_State *L, urisan_request *r, const char *name, size_t nlen,
                      size_t *total)
{
    if (lua_type(L, -1) == LUA_TSTRING) {
        size_t n;
        const char *v = lua_tolstring(L, -1, &n);
        urisan_request_add(r, name, nlen, v, n);
        *total += n;
        return;
    }
    if (!lua_istable(L, -1))
        luaL_error(L, "urisan.check_request: %s: expected a string or a list of strings, got %s",
                   name, luaL_typename(L, -1));
    size_t count = lu_rawlen(L, -1);
    if (count == 0)
        luaL_error(L, "urisan.check_request: %s: an empty list", name);
    for (size_t i = 1; i <= count; i++) {
        lua_rawgeti(L, -1, (int)i);
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "urisan.check_request: %s[%d]: expected a string, got %s", name,
                       (int)i, luaL_typename(L, -1));
        size_t n;
        const char *v = lua_tolstring(L, -1, &n);
        urisan_request_add(r, name, nlen, v, n);
        *total += n;
        lua_pop(L, 1);
    }
}

/* urisan.check_request{scheme=, host=, target=, method=, policy=,
   headers=, trust=, strip_prefix=} -> the table of check for the URI the
   origin receives (urisan_judge_request: the request rebuilt by the
   library, then the one decision). A request rejected before a URI (a
   bad Host, CONNECT ...) is a deny whose reasons are the part's name
   (request_reason; null when a URI was judged) and whose uri is null. */
static int l_check_request(lua_State *L)
{
    static const char *const keys[] = { "scheme", "host", "target", "method", "policy",
                                        "headers", "trust", "strip_prefix", NULL };
    luaL_checktype(L, 1, LUA_TTABLE);
    check_keys(L, 1, "check_request", keys);
    urisan_request r;
    urisan_request_init(&r);
    size_t total = 16, plen = 0;
    r.scheme = req_str(L, "scheme", &r.scheme_len, &total);
    r.target = req_str(L, "target", &r.target_len, &total);
    r.method = req_str(L, "method", &r.method_len, &total);
    lua_getfield(L, 1, "host");
    if (!lua_isnil(L, -1))
        req_field(L, &r, "Host", 4, &total);
    lua_pop(L, 1);
    lua_getfield(L, 1, "headers");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1))
            luaL_error(L, "urisan.check_request: headers: expected a table, got %s",
                       luaL_typename(L, -1));
        int h = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, h) != 0) {
            size_t nlen = 0;
            const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &nlen) : "";
            if (urisan_request_header_id(name, nlen) < 0) {
                luaL_Buffer b;
                luaL_buffinit(L, &b);
                luaL_addstring(&b, "urisan.check_request: headers: unknown header '");
                add_word(&b, name, nlen);
                luaL_addstring(&b, "' (");
                for (int i = 0; i < URISAN_REQH_COUNT_; i++) {
                    if (i > 0)
                        luaL_addstring(&b, ", ");
                    luaL_addstring(&b, urisan_request_header_name((urisan_request_header)i));
                }
                luaL_addchar(&b, ')');
                luaL_pushresult(&b);
                lua_error(L);
            }
            req_field(L, &r, name, nlen, &total);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    urisan_request_trust t;
    urisan_request_trust_init(&t);
    const char *trust = req_str(L, "trust", &plen, &total);
    size_t off = 0, blen = 0;
    if (trust != NULL && urisan_request_trust_parse(trust, plen, &t, &off, &blen) != URISAN_OK) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        luaL_addstring(&b, "urisan.check_request: trust: '");
        add_word(&b, trust + off, blen);
        luaL_addstring(&b, "' is not a source, or named twice (");
        for (int i = 0; i < URISAN_REQSRC_COUNT_; i++) {
            if (i > 0)
                luaL_addstring(&b, ", ");
            luaL_addstring(&b, urisan_request_source_name((urisan_request_source)i));
        }
        luaL_addchar(&b, ')');
        luaL_pushresult(&b);
        lua_error(L);
    }
    t.strip_prefix = req_str(L, "strip_prefix", &t.strip_len, &plen);
    lua_getfield(L, 1, "policy");
    const urisan_policy *pol = NULL;
    if (!lua_isnil(L, -1)) {
        lu_policy *p = test_policy(L, -1);
        if (p == NULL)
            luaL_error(L, "urisan.check_request: policy: expected a urisan.policy");
        pol = p->pol;
    }
    lua_pop(L, 1);

    lu_ctx *c = ctx_of(L);
    char *buf = ctx_room(c, total);
    if (buf == NULL)
        return luaL_error(L, "urisan.check_request: out of memory");
    urisan_request_judgement rj;
    urisan_judge_request(c->host, &r, &t, pol, URISAN_JUDGE_VIEW, buf, total, &rj);
    judgement j;
    judge_init(&j);
    j.uri = rj.j.uri;
    j.rep = rj.j.rep;
    j.dec = rj.j.dec;
    j.hv = rj.j.hv;
    j.host_name = rj.j.host_name;
    int uri_idx = 0;
    const char *in = "";
    size_t len = 0;
    if (rj.reason == URISAN_REQUEST_OK) {
        lua_pushlstring(L, buf, rj.uri_len);   /* the judged URI, kept on the stack */
        uri_idx = lua_gettop(L);
        in = lua_tolstring(L, uri_idx, &len);
    }
    push_result(L, in, len, &j, pol, 0, 2);
    if (uri_idx == 0) {   /* no URI could be made of the request */
        push_null(L);
        lua_setfield(L, -2, "uri");
    }
    if (rj.reason == URISAN_REQUEST_OK) {
        push_null(L);
    } else {
        const char *why = urisan_request_reason_name(rj.reason);
        for (int k = 0; k < 2; k++) {
            lua_createtable(L, 1, 0);
            lua_pushstring(L, why);
            lua_rawseti(L, -2, 1);
            lua_setfield(L, -2, k == 0 ? "reasons" : "deny_reasons");
        }
        lua_pushstring(L, why);
    }
    lua_setfield(L, -2, "request_reason");
    return 1;
}
#endif

#ifdef URISAN_HAVE_HOST_LAYER
/* urisan.check_link(url [, opts]) -> table: check of the URI a mail
   reader's client opens for the link url (urisan_link_opened: a link
   written in Unicode as the URI a browser opens, UTS #46), with the key
   written (the link as written) when it was converted; the rspamd plugin
   judges the URLs rspamd hands it so, as the milter and extract --mail
   judge a message's links. */
static int l_check_link(lua_State *L)
{
    size_t len, blen = 0, olen = 0;
    const char *in = get_text(L, 1, &len);
    const char *base;
    const urisan_policy *pol = get_opts(L, 2, "check_link", keys_base, &base, &blen);
    lu_ctx *lc = ctx_of(L);
    free(lc->opened);
    lc->opened = urisan_link_opened(in, len, &olen);
    bool conv = lc->opened != NULL;
    if (conv) {                                 /* the URI opened: its uri */
        in = lc->opened;
        len = olen;
    }
    judgement j;
    judge(L, lc, in, len, base, blen, pol, 1, &j);
    push_result(L, in, len, &j, pol, base != NULL, 2);
    if (conv) {
        lua_pushvalue(L, 1);                    /* the link as written */
        lua_setfield(L, -2, "written");
    }
    return 1;
}
#endif

/* Names of f's bits (then of rules) joined by ",", as X-Urisan-*-Reasons
   has them (urisan_reasons_format); "" for none. */
static void push_joined(lua_State *L, urisan_flags f, unsigned rules)
{
    char small[512];
    size_t n = 0;
    urisan_reasons_format(f, rules, NULL, 0, &n);
    char *p = n <= sizeof small ? small : lua_newuserdata(L, n);
    if (urisan_reasons_format(f, rules, p, n, &n) != URISAN_OK)
        n = 0;   /* cannot be: measured above */
    lua_pushlstring(L, p, n);
    if (p != small)
        lua_remove(L, -2);   /* the userdata */
}

/* urisan.verdict(uri [, opts]) -> verdict, deny reasons, flag reasons:
   the decision alone, no table (a gateway's per-request call). The
   reasons are "a,b" lists ("" for none): the deny_reasons and
   flag_reasons of check. */
static int l_verdict(lua_State *L)
{
    size_t len, blen = 0;
    const char *in = get_text(L, 1, &len);
    const char *base;
    const urisan_policy *pol = get_opts(L, 2, "verdict", keys_base, &base, &blen);
    judgement j;
    judge(L, ctx_of(L), in, len, base, blen, pol, 0, &j);
    const urisan_decision *d = &j.dec;
    lua_pushstring(L, urisan_verdict_name(d->verdict));
    if (d->verdict == URISAN_DENY)
        push_joined(L, d->deny_flags, d->rules);
    else
        lua_pushliteral(L, "");
    push_joined(L, d->verdict == URISAN_ALLOW ? 0 : d->flag_flags, 0);
    return 3;
}

/* urisan.parse(uri [, opts]) -> uri, valid, error, components (the
   split alone, under the policy's limits) */
static int l_parse(lua_State *L)
{
    size_t len;
    const char *in = get_text(L, 1, &len);
    const urisan_policy *pol = get_opts(L, 2, "parse", keys_policy, NULL, NULL);
    judgement j;
    judge_init(&j);
    memset(&j.rep, 0, sizeof j.rep);
    urisan_parse(in, len, pol ? urisan_policy_limits(pol) : NULL, &j.uri, NULL);
    push_result(L, in, len, &j, pol, 0, 0);
    return 1;
}

/* ------------------------------------------------------------------ */
/* normalize, resolve, equivalent                                      */
/* ------------------------------------------------------------------ */

static const urisan_limits *limits_of(const urisan_policy *pol)
{
    return pol ? urisan_policy_limits(pol) : NULL;
}

/* Returns nil, message on a URI the library refuses (a URI is data: a
   bad one is an answer, not a programming error). */
static int push_fail(lua_State *L, const urisan_error *e)
{
    lua_pushnil(L);
    lua_pushfstring(L, "%s at offset %d: %s%s", urisan_status_name(e->code),
                    (int)(e->offset > 0x7fffffff ? 0x7fffffff : e->offset),
                    urisan_status_message(e->code),
                    e->input == 1 ? " (in the reference)" : "");
    return 2;
}

/* The arguments of one library writer (normalize, resolve, equivalent). */
typedef struct {
    const char *a, *b;
    size_t alen, blen;
    const urisan_limits *lim;
    urisan_resolve_opts ropt;
    int equal;
} fill_args;

typedef urisan_status (*fill_fn)(fill_args *x, char *buf, size_t cap, size_t *needed,
                                 urisan_error *err);

/* Call f with the context's buffer until what it reports fits (twice at
   most); *out is the buffer on URISAN_OK. "out of memory" for a size
   beyond OUT_MAX or no memory. */
static urisan_status fill(lua_State *L, const char *what, fill_fn f, fill_args *x, size_t cap,
                          char **out, size_t *needed, urisan_error *err)
{
    urisan_status st = URISAN_E_NOSPACE;
    for (int round = 0; round < 2 && st == URISAN_E_NOSPACE; round++) {
        char *buf = ctx_room(ctx_of(L), cap);
        if (buf == NULL)
            luaL_error(L, "urisan.%s: out of memory", what);
        st = f(x, buf, cap, needed, err);
        *out = buf;
        cap = *needed + 1;
    }
    return st;
}

static urisan_status norm_fill(fill_args *x, char *buf, size_t cap, size_t *needed,
                               urisan_error *err)
{
    return urisan_normalize(x->a, x->alen, x->lim, buf, cap, needed, err);
}

static urisan_status resolve_fill(fill_args *x, char *buf, size_t cap, size_t *needed,
                                  urisan_error *err)
{
    return urisan_resolve(x->a, x->alen, x->b, x->blen, &x->ropt, buf, cap, needed, NULL, err);
}

static urisan_status equal_fill(fill_args *x, char *buf, size_t cap, size_t *needed,
                                urisan_error *err)
{
    return urisan_equivalent(x->a, x->alen, x->b, x->blen, x->lim, buf, cap, needed, &x->equal,
                             err);
}

/* The text f wrote, or nil, message. */
static int push_filled(lua_State *L, const char *what, fill_fn f, fill_args *x)
{
    char *buf = NULL;
    size_t needed = 0;
    urisan_error err = { URISAN_OK, 0, 0 };
    if (fill(L, what, f, x, 256, &buf, &needed, &err) != URISAN_OK)
        return push_fail(L, &err);
    lua_pushlstring(L, buf, needed);
    return 1;
}

/* urisan.normalize(uri [, opts]) -> normal form | nil, message */
static int l_normalize(lua_State *L)
{
    fill_args x;
    memset(&x, 0, sizeof x);
    x.a = get_text(L, 1, &x.alen);
    x.lim = limits_of(get_opts(L, 2, "normalize", keys_policy, NULL, NULL));
    return push_filled(L, "normalize", norm_fill, &x);
}

static urisan_above_root get_above_root(lua_State *L, int idx)
{
    static const char *const names[] = { "clamp", "keep", "reject", NULL };
    lua_getfield(L, idx, "above_root");
    int i = 0;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, idx, "options.above_root: expected \"clamp\", \"keep\" or \"reject\"");
        const char *s = lua_tostring(L, -1);
        for (i = 0; names[i] != NULL && strcmp(names[i], s) != 0; i++)
            ;
        if (names[i] == NULL)
            luaL_argerror(L, idx, "options.above_root: expected \"clamp\", \"keep\" or \"reject\"");
    }
    lua_pop(L, 1);
    return (urisan_above_root)i;
}

/* urisan.resolve(base, ref [, opts]) -> URI | nil, message;
   opts: policy, non_strict (boolean), above_root ("clamp", "keep",
   "reject") */
static int l_resolve(lua_State *L)
{
    fill_args x;
    memset(&x, 0, sizeof x);
    x.a = get_text(L, 1, &x.alen);
    x.b = get_text(L, 2, &x.blen);
    x.ropt.above_root = URISAN_ABOVE_ROOT_CLAMP;
    x.ropt.limits = limits_of(get_opts(L, 3, "resolve", keys_resolve, NULL, NULL));
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "non_strict");
        x.ropt.non_strict = lua_toboolean(L, -1);
        lua_pop(L, 1);
        x.ropt.above_root = get_above_root(L, 3);
    }
    return push_filled(L, "resolve", resolve_fill, &x);
}

/* urisan.equivalent(a, b [, opts]) -> boolean | nil, message */
static int l_equivalent(lua_State *L)
{
    fill_args x;
    memset(&x, 0, sizeof x);
    x.a = get_text(L, 1, &x.alen);
    x.b = get_text(L, 2, &x.blen);
    x.lim = limits_of(get_opts(L, 3, "equivalent", keys_policy, NULL, NULL));
    char *work = NULL;
    size_t needed = 0;
    urisan_error err = { URISAN_OK, 0, 0 };
    if (fill(L, "equivalent", equal_fill, &x, 512, &work, &needed, &err) != URISAN_OK)
        return push_fail(L, &err);
    lua_pushboolean(L, x.equal);
    return 1;
}

/* ------------------------------------------------------------------ */
/* extract                                                             */
/* ------------------------------------------------------------------ */

/* The table of one link's row (urisan.h "The row of one link found,
   described once"): the library's keys, as `urisan extract --json`
   writes them, less the command's own (message, explain, resolve) and
   the host's forms (when 0). */
static void push_row(lua_State *L, const urisan_link_row *row)
{
    size_t n;
    const urisan_result_key *keys = urisan_link_row_keys(&n);
    lua_createtable(L, 0, 16);
    for (size_t i = 0; i < n; i++) {
        const urisan_result_key *k = &keys[i];
        if (k->when != 0 || !urisan_link_row_present(row, k))
            continue;
        urisan_rvalue v;
        urisan_link_row_value(row, k, &v);
        push_value(L, &v);
        lua_setfield(L, -2, k->name);
    }
}

/* urisan.extract(text [, opts]) -> array of hits (extract --json's keys) */
static int l_extract(lua_State *L)
{
    size_t len;
    const char *text = get_text(L, 1, &len);
    const urisan_policy *pol = get_opts(L, 2, "extract", keys_policy, NULL, NULL);
    size_t scap = urisan_extract_scratch_size(pol);
    size_t hoff = (scap + 15) & ~(size_t)15;
    size_t foff = hoff + HIT_BATCH * sizeof(urisan_hit);
    char *mem = ctx_room(ctx_of(L), foff + HIT_BATCH * sizeof(urisan_link_facts));
    if (mem == NULL)
        return luaL_error(L, "urisan.extract: out of memory");
    urisan_hit *hits = (urisan_hit *)(void *)(mem + hoff);
#ifdef URISAN_HAVE_HOST_LAYER
    /* each hit kept, then decided once as the URI a browser opens for it
       (urisan_judge_text_link), the host layer's judgement folded in, as
       `urisan extract` decides */
    lu_ctx *lc = ctx_of(L);
    urisan_link_judge lj = { lc->host, NULL };
    urisan_link_facts *facts = (urisan_link_facts *)(void *)(mem + foff);
    urisan_link_keeper keep = { facts, HIT_BATCH, 0 };
    const urisan_link_hooks hk = { urisan_link_keep, &keep };
    const urisan_link_hooks *hooks = &hk;
#else
    const urisan_link_hooks *hooks = NULL;   /* the core decides */
#endif
    lua_newtable(L);
    int out = 0;
    size_t start = 0;
    for (;;) {
        size_t n = 0, next = start;
#ifdef URISAN_HAVE_HOST_LAYER
        keep.n = 0;
#endif
        urisan_status st = urisan_extract_with(text, len, start, 0, pol, hooks, hits, HIT_BATCH,
                                               &n, mem, scap, &next);
        for (size_t k = 0; k < n; k++) {
            urisan_link_row row;
#ifdef URISAN_HAVE_HOST_LAYER
            const char *written = NULL;
            size_t wlen = 0;
            free(lc->opened);
            lc->opened = urisan_judge_text_link(&lj, pol, &hits[k], &facts[k], &written, &wlen);
            urisan_link_row_hit(&row, &hits[k]);
            row.written = written;
            row.written_len = wlen;
#else
            urisan_link_row_hit(&row, &hits[k]);
#endif
            push_row(L, &row);
            lua_rawseti(L, -2, ++out);
        }
        if (st == URISAN_OK)
            return 1;
        if (st != URISAN_E_TOO_MANY || next <= start) {
            urisan_error e = { st, next, 0 };
            return raise_status(L, "extract", &e);
        }
        start = next;
    }
}

#ifdef URISAN_HAVE_MAIL
/* The rows of extract_mail: the array at index arr of L. */
typedef struct {
    lua_State *L;
    int arr;
    int n;
} mail_rows;

/* One link of the message, as `urisan extract --mail --json` writes it. */
static bool on_mail_hit(void *ctx, const urisan_mail_hit *h)
{
    mail_rows *r = ctx;
    urisan_link_row row;
    urisan_mail_hit_row(&row, h);
    push_row(r->L, &row);
    lua_rawseti(r->L, r->arr, ++r->n);
    return true;
}

/* A limit reached: a row of its own (context "limit"), as the command's. */
static bool on_mail_diag(void *ctx, const urisan_mail_diag *d)
{
    mail_rows *r = ctx;
    urisan_link_row row;
    urisan_mail_diag_row(&row, d);
    push_row(r->L, &row);
    lua_rawseti(r->L, r->arr, ++r->n);
    return true;
}

/* urisan.extract_mail(message [, opts]) -> array of rows: the links of a
   mail message (its parts, HTML, attachments: PDF, Office, QR codes ...)
   with the keys of `urisan extract --mail --json`, decided once as the
   command decides them (liburisan-mail with the host layer). */
static int l_extract_mail(lua_State *L)
{
    size_t len;
    const char *data = get_text(L, 1, &len);
    const urisan_policy *pol = get_opts(L, 2, "extract_mail", keys_policy, NULL, NULL);
    urisan_link_judge lj = { ctx_of(L)->host, NULL };
    const urisan_link_hooks hk = { urisan_judge_link_decide, &lj };
    urisan_mail_limits lim;
    urisan_mail_limits_default(&lim);
    lua_newtable(L);
    mail_rows r = { L, lua_gettop(L), 0 };
    urisan_mail_sink sink = { on_mail_hit, on_mail_diag, &r };
    urisan_mail_result res;
    urisan_mail_status st = urisan_mail_scan_with(data, len, pol, &lim, &hk, &sink, &res);
    if (st == URISAN_MAIL_NOMEM)
        return luaL_error(L, "urisan.extract_mail: out of memory");
    if (st == URISAN_MAIL_NOT_MESSAGE)
        return luaL_error(L, "urisan.extract_mail: the input is not a mail message");
    return 1;
}
#endif

/* ------------------------------------------------------------------ */
/* Policies                                                            */
/* ------------------------------------------------------------------ */

/* Raise "urisan.policy: WHERE:LINE:COLUMN: message 'word'" (the
   command's "FILE:LINE:COLUMN: message 'word'", doc/policy.md). */
static int raise_policy(lua_State *L, const char *where, const char *text, size_t len,
                        const urisan_policy_error *e)
{
    char num[64];
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "urisan.policy: ");
    luaL_addstring(&b, where);
    snprintf(num, sizeof num, ":%zu:", e->line);
    luaL_addstring(&b, num);
    if (e->column > 0) {
        snprintf(num, sizeof num, "%zu:", e->column);
        luaL_addstring(&b, num);
    }
    luaL_addchar(&b, ' ');
    luaL_addstring(&b, e->msg ? e->msg : urisan_status_message(URISAN_E_BAD_POLICY));
    if (e->word_len > 0 && e->word_off < len) {
        luaL_addstring(&b, " '");
        add_word(&b, text + e->word_off,
                 e->word_len < len - e->word_off ? e->word_len : len - e->word_off);
        luaL_addchar(&b, '\'');
    }
    luaL_pushresult(&b);
    return lua_error(L);
}

/* The whole file at path as a Lua string on the stack (at most
   POLICY_FILE_MAX bytes), or a raised error naming it. */
static void read_file(lua_State *L, const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        luaL_error(L, "urisan.policy: %s: %s", path, strerror(errno));
        return;   /* not reached: luaL_error does not return */
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t total = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        total += n;
        if (total > POLICY_FILE_MAX) {
            fclose(fp);
            luaL_error(L, "urisan.policy: %s: larger than %d bytes", path, (int)POLICY_FILE_MAX);
        }
        luaL_addlstring(&b, chunk, n);
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad)
        luaL_error(L, "urisan.policy: %s: read error", path);
    luaL_pushresult(&b);
}

/* An optional string field of the table at idx (NULL when nil). */
static const char *opt_field(lua_State *L, int idx, const char *k, size_t *len)
{
    lua_getfield(L, idx, k);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "urisan.policy: %s: expected a string, got %s", k, luaL_typename(L, -1));
    const char *s = lua_tolstring(L, -1, len);
    lua_pop(L, 1);   /* still referenced by the table */
    return s;
}

/* urisan.policy{profile = NAME, file = PATH | text = TEXT} -> policy.
   Built once; read-only after. A mistake raises an error with the line,
   column and word (a gateway that cannot load its policy must not
   start). Unknown keys are refused too (a typo is no silent default). */
static int l_policy(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 1) != 0) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        if (strcmp(k, "profile") != 0 && strcmp(k, "file") != 0 && strcmp(k, "text") != 0)
            return luaL_error(L, "urisan.policy: unknown option '%s' (profile, file, text)",
                              lua_type(L, -2) == LUA_TSTRING ? k : luaL_typename(L, -2));
        lua_pop(L, 1);
    }
    size_t plen = 0, flen = 0, tlen = 0;
    const char *profile = opt_field(L, 1, "profile", &plen);
    const char *file = opt_field(L, 1, "file", &flen);
    const char *text = opt_field(L, 1, "text", &tlen);
    if (file != NULL && text != NULL)
        return luaL_error(L, "urisan.policy: file and text exclude each other");
    if (file != NULL && strlen(file) != flen)
        return luaL_error(L, "urisan.policy: file: a path with a NUL byte");
    lu_policy *p = (lu_policy *)lua_newuserdata(L, sizeof *p);
    p->pol = NULL;
    luaL_getmetatable(L, POLICY_MT);
    lua_setmetatable(L, -2);
    p->pol = malloc(urisan_policy_size());
    if (p->pol == NULL)
        return luaL_error(L, "urisan.policy: out of memory");
    urisan_policy_init(p->pol);
    if (profile != NULL && urisan_policy_profile(p->pol, profile, plen) != URISAN_OK) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        luaL_addstring(&b, "urisan.policy: unknown profile '");
        add_word(&b, profile, plen);
        luaL_addstring(&b, "' (");
        for (size_t i = 0; urisan_profile_name(i) != NULL; i++) {
            if (i > 0)
                luaL_addstring(&b, ", ");
            luaL_addstring(&b, urisan_profile_name(i));
        }
        luaL_addchar(&b, ')');
        luaL_pushresult(&b);
        return lua_error(L);
    }
    if (file != NULL) {
        read_file(L, file);
        text = lua_tolstring(L, -1, &tlen);
    }
    if (text != NULL) {
        urisan_policy_error e;
        if (urisan_policy_parse_ex(p->pol, text, tlen, &e) != URISAN_OK)
            return raise_policy(L, file != NULL ? file : "text", text, tlen, &e);
        if (file != NULL)
            lua_pop(L, 1);
    }
    return 1;
}

static int policy_gc(lua_State *L)
{
    lu_policy *p = (lu_policy *)luaL_checkudata(L, 1, POLICY_MT);
    free(p->pol);
    p->pol = NULL;
    return 0;
}

static lu_policy *check_policy(lua_State *L, int idx)
{
    lu_policy *p = (lu_policy *)luaL_checkudata(L, idx, POLICY_MT);
    if (p->pol == NULL)
        luaL_argerror(L, idx, "a collected urisan.policy");
    return p;
}

/* p:text() -> the policy in the policy language (urisan policy --print) */
static int policy_text(lua_State *L)
{
    lu_policy *p = check_policy(L, 1);
    size_t needed = 0;
    urisan_policy_format(p->pol, NULL, 0, &needed);
    char *buf = ctx_room(ctx_of(L), needed + 1);
    if (buf == NULL || urisan_policy_format(p->pol, buf, needed + 1, &needed) != URISAN_OK)
        return luaL_error(L, "urisan.policy: out of memory");
    lua_pushlstring(L, buf, needed);
    return 1;
}

/* p:limits() -> {max_uri = ..., ...} */
static int policy_limits(lua_State *L)
{
    const urisan_limits *lim = urisan_policy_limits(check_policy(L, 1)->pol);
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, (lua_Integer)lim->max_uri);
    lua_setfield(L, -2, "max_uri");
    lua_pushinteger(L, (lua_Integer)lim->max_scheme);
    lua_setfield(L, -2, "max_scheme");
    lua_pushinteger(L, (lua_Integer)lim->max_userinfo);
    lua_setfield(L, -2, "max_userinfo");
    lua_pushinteger(L, (lua_Integer)lim->max_host);
    lua_setfield(L, -2, "max_host");
    lua_pushinteger(L, (lua_Integer)lim->max_label);
    lua_setfield(L, -2, "max_label");
    lua_pushinteger(L, (lua_Integer)lim->max_segments);
    lua_setfield(L, -2, "max_segments");
    return 1;
}

static int policy_tostring(lua_State *L)
{
    lua_pushfstring(L, "urisan.policy: %p", lua_touserdata(L, 1));
    return 1;
}

/* ------------------------------------------------------------------ */
/* Module                                                              */
/* ------------------------------------------------------------------ */

static int l_version(lua_State *L)
{
    lua_pushstring(L, urisan_version());
    return 1;
}

/* urisan.flag_names() -> every flag name, in bit order */
static int l_flag_names(lua_State *L)
{
    push_flags(L, ~(urisan_flags)0);
    return 1;
}

static int l_profiles(lua_State *L)
{
    lua_newtable(L);
    for (size_t i = 0; urisan_profile_name(i) != NULL; i++) {
        lua_pushstring(L, urisan_profile_name(i));
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

typedef struct {
    const char *name;
    lua_CFunction fn;
} lu_reg;

/* t[name] = closure(fn, the value at ctx_idx) for each entry (what
   luaL_setfuncs does in 5.2+, here for 5.1 as well). */
static void set_funcs(lua_State *L, const lu_reg *r, int ctx_idx)
{
    for (; r->name != NULL; r++) {
        lua_pushvalue(L, ctx_idx);
        lua_pushcclosure(L, r->fn, 1);
        lua_setfield(L, -2, r->name);
    }
}

static const lu_reg module_fns[] = {
    { "check", l_check },           { "verdict", l_verdict },
#ifdef URISAN_HAVE_HOST_LAYER
    { "check_link", l_check_link },
#endif
    { "parse", l_parse },           { "normalize", l_normalize },
    { "resolve", l_resolve },       { "equivalent", l_equivalent },
    { "extract", l_extract },       { "policy", l_policy },
#ifdef URISAN_HAVE_MAIL
    { "extract_mail", l_extract_mail },
#endif
    { "version", l_version },       { "flag_names", l_flag_names },
    { "profiles", l_profiles },
#ifdef URISAN_HAVE_HOST_LAYER
    { "check_request", l_check_request },
#endif
    { NULL, NULL },
};

static const lu_reg policy_fns[] = {
    { "text", policy_text }, { "limits", policy_limits }, { NULL, NULL },
};

int luaopen_urisan(lua_State *L);

int luaopen_urisan(lua_State *L)
{
#ifdef URISAN_HAVE_MAIL
    /* the readers of binary attachments when not installed (the build
       tree's, as the tests run it): the library reads no environment */
    const char *readers = getenv("URISAN_READERS");
    if (readers != NULL && readers[0] != '\0')
        (void)urisan_mail_set_readers(readers);
#endif
    /* the per-state context: upvalue 1 of every function */
    lu_ctx *c = (lu_ctx *)lua_newuserdata(L, sizeof *c);
    c->buf = NULL;
    c->cap = 0;
#ifdef URISAN_HAVE_HOST_LAYER
    c->host = NULL;
    c->opened = NULL;
#endif
    if (luaL_newmetatable(L, CTX_MT)) {
        lua_pushcfunction(L, ctx_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    int ctx_idx = lua_gettop(L);
#ifdef URISAN_HAVE_HOST_LAYER
    /* one host context per Lua state, freed with it (its data - ICU's,
       the Public Suffix List - is loaded once a process) */
    c->host = urisan_host_ctx_new();
    if (c->host == NULL)
        return luaL_error(L, "urisan: out of memory for the host context");
#endif

    if (luaL_newmetatable(L, POLICY_MT)) {
        lua_pushcfunction(L, policy_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, policy_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushliteral(L, "urisan.policy");
        lua_setfield(L, -2, "__metatable");
        lua_newtable(L);
        set_funcs(L, policy_fns, ctx_idx);
        lua_setfield(L, -2, "__index");
    }
    lua_pop(L, 1);

    lua_newtable(L);
    set_funcs(L, module_fns, ctx_idx);
    push_null(L);
    lua_setfield(L, -2, "null");
    lua_pushstring(L, urisan_version());
    lua_setfield(L, -2, "_VERSION");
    return 1;
}
