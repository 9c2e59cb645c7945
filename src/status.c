/* status.c - names and messages of status codes, host types, verdicts. */
#include "internal.h"

URISAN_API const char *urisan_status_name(urisan_status s)
{
    switch (s) {
#define URISAN_X_(U, l, v, m) case URISAN_E_##U: return #l;
    URISAN_STATUS_LIST(URISAN_X_)
#undef URISAN_X_
    default: return "unknown";
    }
}

URISAN_API const char *urisan_status_message(urisan_status s)
{
    switch (s) {
#define URISAN_X_(U, l, v, m) case URISAN_E_##U: return m;
    URISAN_STATUS_LIST(URISAN_X_)
#undef URISAN_X_
    default: return "unknown status";
    }
}

URISAN_API const char *urisan_host_type_name(urisan_host_type t)
{
    switch (t) {
    case URISAN_HOST_NONE: return NULL;
    case URISAN_HOST_EMPTY: return "empty";
    case URISAN_HOST_REG_NAME: return "reg-name";
    case URISAN_HOST_IPV4: return "ipv4";
    case URISAN_HOST_IPV6: return "ipv6";
    case URISAN_HOST_IPV6_ZONE: return "ipv6-zone";
    case URISAN_HOST_IPVFUTURE: return "ipvfuture";
    case URISAN_HOST_INVALID: return "invalid";
    }
    return NULL;
}

bool urisan_ieq(const char *a, size_t alen, const char *lit)
{
    size_t i = 0;
    for (; i < alen; i++) {
        if (lit[i] == '\0' || lower_ascii((unsigned char)a[i]) != (unsigned char)lit[i])
            return false;
    }
    return lit[i] == '\0';
}
