/*
 * ngx_http_urisan_module_modules.c - the list of modules a dynamic module
 * file holds, which nginx's load_module reads (ngx_modules,
 * ngx_module_names, ngx_module_order). nginx's configure writes this file
 * for --add-dynamic-module; the meson build has it here, the same.
 */
#include <ngx_config.h>
#include <ngx_core.h>

extern ngx_module_t ngx_http_urisan_module;

ngx_module_t *ngx_modules[] = {
    &ngx_http_urisan_module,
    NULL
};

char *ngx_module_names[] = {
    "ngx_http_urisan_module",
    NULL
};

char *ngx_module_order[] = {
    NULL
};
