/*
 * ngx_http_urisan_metrics.c - the module's counters (urisan_metrics.h,
 * the ones `urisan serve` answers on GET /metrics) in a shared memory
 * zone every worker adds to, and the `urisan_metrics;` location that
 * answers them.
 *
 * The zone keeps its name and size across `nginx -s reload`, so nginx
 * hands the new workers the same memory: the counters go on, and the
 * zone's init, called with the old zone's data, counts the reload. A
 * reload nginx refuses because a policy does not load is counted in the
 * zone of the configuration that stays in force (the master still maps
 * it). The counters are plain uint64_t changed with relaxed atomic adds:
 * no lock; the zone's slab allocator (nginx 1.22 puts one in every zone)
 * is used once, for the counters themselves.
 */
#include "ngx_http_urisan.h"

static ngx_str_t zone_name = ngx_string("urisan_metrics");

static ngx_int_t zone_init(ngx_shm_zone_t *zone, void *data)
{
    if (data != NULL) {   /* a reload: the same memory, the counts go on */
        zone->data = data;
        urisan_metrics_reload(data, 1);
        return NGX_OK;
    }
    ngx_slab_pool_t *shpool = (ngx_slab_pool_t *)zone->shm.addr;
    urisan_metrics *m = ngx_slab_calloc(shpool, sizeof *m);
    if (m == NULL)
        return NGX_ERROR;
    shpool->data = m;
    zone->data = m;
    return NGX_OK;
}

ngx_int_t ngx_http_urisan_metrics_zone(ngx_conf_t *cf, ngx_http_urisan_main_conf_t *mcf)
{
    if (mcf->zone != NULL)
        return NGX_OK;
    /* the slab allocator's own pages, then the counters */
    size_t size = 8 * ngx_pagesize + ngx_align(sizeof(urisan_metrics), ngx_pagesize);
    mcf->zone = ngx_shared_memory_add(cf, &zone_name, size, &ngx_http_urisan_module);
    if (mcf->zone == NULL)
        return NGX_ERROR;
    mcf->zone->init = zone_init;
    return NGX_OK;
}

urisan_metrics *ngx_http_urisan_metrics_of(ngx_http_urisan_main_conf_t *mcf)
{
    return mcf->zone != NULL ? mcf->zone->data : NULL;
}

void ngx_http_urisan_metrics_refused_reload(void)
{
    /* ngx_cycle is still the configuration in force while a new one is
       read; at the first start (and under nginx -t) it has no zone. */
    ngx_cycle_t *cycle = (ngx_cycle_t *)(uintptr_t)ngx_cycle;
    for (ngx_list_part_t *part = &cycle->shared_memory.part; part != NULL; part = part->next) {
        ngx_shm_zone_t *z = part->elts;
        for (ngx_uint_t i = 0; z != NULL && i < part->nelts; i++) {
            if (z[i].tag == &ngx_http_urisan_module && z[i].data != NULL &&
                z[i].shm.name.len == zone_name.len &&
                ngx_strncmp(z[i].shm.name.data, zone_name.data, zone_name.len) == 0) {
                urisan_metrics_reload(z[i].data, 0);
                return;
            }
        }
    }
}

/* GET (or HEAD) on a `urisan_metrics;` location: the counters. */
static ngx_int_t metrics_handler(ngx_http_request_t *r)
{
    if (!(r->method & (NGX_HTTP_GET | NGX_HTTP_HEAD)))
        return NGX_HTTP_NOT_ALLOWED;
    ngx_int_t rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK)
        return rc;
    ngx_http_urisan_main_conf_t *mcf = ngx_http_get_module_main_conf(r, ngx_http_urisan_module);
    urisan_metrics *m = ngx_http_urisan_metrics_of(mcf);
    if (m == NULL)
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    u_char *text = ngx_pnalloc(r->pool, URISAN_METRICS_TEXT_MAX);
    size_t n = 0;
    if (text == NULL ||
        urisan_metrics_format(m, (char *)text, URISAN_METRICS_TEXT_MAX, &n) != URISAN_OK)
        return NGX_HTTP_INTERNAL_SERVER_ERROR;

    ngx_str_set(&r->headers_out.content_type, URISAN_METRICS_CONTENT_TYPE);
    r->headers_out.content_type_len = r->headers_out.content_type.len;
    r->headers_out.status = NGX_HTTP_OK;
    r->headers_out.content_length_n = (off_t)n;
    rc = ngx_http_send_header(r);
    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only)
        return rc;
    ngx_buf_t *b = ngx_calloc_buf(r->pool);
    if (b == NULL)
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    b->pos = text;
    b->last = text + n;
    b->memory = 1;
    b->last_buf = (r == r->main) ? 1 : 0;
    b->last_in_chain = 1;
    ngx_chain_t out = { b, NULL };
    return ngx_http_output_filter(r, &out);
}

char *ngx_http_urisan_metrics_directive(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    (void)cmd;
    (void)conf;
    ngx_http_urisan_main_conf_t *mcf = ngx_http_conf_get_module_main_conf(cf,
                                                                          ngx_http_urisan_module);
    mcf->used = 1;
    if (ngx_http_urisan_metrics_zone(cf, mcf) != NGX_OK)
        return NGX_CONF_ERROR;
    ngx_http_core_loc_conf_t *clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    clcf->handler = metrics_handler;
    return NGX_CONF_OK;
}
