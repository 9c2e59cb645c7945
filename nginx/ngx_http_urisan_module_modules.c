/*
 * ngx_http_urisan_module_modules.c - the list of modules a dynamic module
 * file holds, which nginx's load_module reads (ngx_modules,
 * ngx_module_names, ngx_module_order). nginx's configure writes this file
 * for --add-dynamic-module; the meson build has it here, the same.
 *
 * Protected: load_module finds them with dlsym in this file, and this
 * file's own references (a sanitizer's registration of its globals)
 * must bind to them too, not to the nginx binary's ngx_modules of the
 * same name, which is exported.
 */
#define NGX_URISAN_OWN __attribute__((visibility("protected")))
#include <ngx_config.h>
#include <ngx_core.h>

extern ngx_module_t ngx_http_urisan_module;

NGX_URISAN_OWN ngx_module_t *ngx_modules[] = {
    &ngx_http_urisan_module,
    NULL
};

NGX_URISAN_OWN char *ngx_module_names[] = {
    "ngx_http_urisan_module",
    NULL
};

NGX_URISAN_OWN char *ngx_module_order[] = {
    NULL
};
