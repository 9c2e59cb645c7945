/*
 * ngx_http_urisan.h - what the nginx module's files share: its
 * configuration and the counters' zone (doc/gateways.md "nginx module").
 */
#ifndef NGX_HTTP_URISAN_H
#define NGX_HTTP_URISAN_H

#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "urisan.h"
#include "urisan_metrics.h"

typedef struct {
    ngx_shm_zone_t *zone;          /* the counters (urisan_metrics.h) */
    urisan_policy *default_pol;    /* for a block that names no policy */
    ngx_flag_t used;               /* a urisan directive was seen */
} ngx_http_urisan_main_conf_t;

typedef struct {
    ngx_flag_t enable;             /* urisan on|off */
    ngx_flag_t log_only;           /* urisan_log_only on|off */
    ngx_uint_t deny_status;        /* urisan_deny_status */
    ngx_str_t profile;             /* urisan_profile (data NULL: not set here) */
    ngx_str_t policy_file;         /* urisan_policy (data NULL: not set here) */
    ngx_str_t policy_where;        /* "FILE:LINE" of the directive */
    urisan_policy *pol;            /* made at configuration: what judges */
} ngx_http_urisan_loc_conf_t;

extern ngx_module_t ngx_http_urisan_module;

/* ngx_http_urisan_metrics.c: the zone of the counters (made with the
   first directive), its location handler, and a refused reload counted
   in the zone of the configuration in force. */
ngx_int_t ngx_http_urisan_metrics_zone(ngx_conf_t *cf, ngx_http_urisan_main_conf_t *mcf);
urisan_metrics *ngx_http_urisan_metrics_of(ngx_http_urisan_main_conf_t *mcf);
char *ngx_http_urisan_metrics_directive(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
void ngx_http_urisan_metrics_refused_reload(void);

#endif
