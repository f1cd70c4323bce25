/* Tracing and print(): the events and messages compiled pipelines report, and the default
 * handlers, which print them as Halide 14's runtime does. */
#include <stdio.h>
#include <string.h>

#include "loom_runtime.h"

static int32_t default_trace(void *user_context, const loom_trace_event_t *event);
static void default_print(void *user_context, const char *message);

static loom_trace_handler_t trace_handler = default_trace;
static loom_print_handler_t print_handler = default_print;

loom_trace_handler_t loom_set_trace_handler(loom_trace_handler_t handler) {
    loom_trace_handler_t old = trace_handler;
    trace_handler = handler ? handler : default_trace;
    return old;
}

int32_t loom_trace(void *user_context, const loom_trace_event_t *event) {
    return trace_handler(user_context, event);
}

loom_print_handler_t loom_set_print_handler(loom_print_handler_t handler) {
    loom_print_handler_t old = print_handler;
    print_handler = handler ? handler : default_print;
    return old;
}

void loom_print(void *user_context, const char *message) { print_handler(user_context, message); }

/* One fputs per message: stdio's lock keeps lines of parallel tasks whole, and the lines keep
 * their order with the program's own output on stdout. */
static void default_print(void *user_context, const char *message) {
    (void)user_context;
    fputs(message, stdout);
}

char *loom_append_string(char *dst, char *end, const char *s) {
    if (dst >= end) return dst;
    size_t room = (size_t)(end - dst) - 1, n = strlen(s);
    if (n > room) n = room;
    memcpy(dst, s, n);
    dst[n] = 0;
    return dst + n;
}

static char *append_formatted(char *dst, char *end, const char *text) {
    return loom_append_string(dst, end, text);
}

char *loom_append_int64(char *dst, char *end, int64_t v) {
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return append_formatted(dst, end, text);
}

char *loom_append_uint64(char *dst, char *end, uint64_t v) {
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return append_formatted(dst, end, text);
}

char *loom_append_double(char *dst, char *end, double v, int32_t scientific) {
    /* %f of the largest double is 317 characters, %e 13: glibc prints nan, -nan, inf and -inf
     * as Halide does. */
    char text[400];
    snprintf(text, sizeof text, scientific ? "%e" : "%f", v);
    return append_formatted(dst, end, text);
}

static const char *const event_names[] = {
    "Load",    "Store",       "Begin realization", "End realization", "Produce", "End produce",
    "Consume", "End consume", "Begin pipeline",    "End pipeline",    "Tag"};

static char *append_value(char *dst, char *end, const loom_trace_event_t *e, int lane) {
    const loom_type_t t = e->type;
    const char *v = (const char *)e->value;
    switch (t.code) {
    case loom_type_int:
        if (t.bits <= 8) return loom_append_int64(dst, end, ((const int8_t *)v)[lane]);
        if (t.bits <= 16) return loom_append_int64(dst, end, ((const int16_t *)v)[lane]);
        if (t.bits <= 32) return loom_append_int64(dst, end, ((const int32_t *)v)[lane]);
        return loom_append_int64(dst, end, ((const int64_t *)v)[lane]);
    case loom_type_uint:
        if (t.bits <= 8) return loom_append_uint64(dst, end, ((const uint8_t *)v)[lane]);
        if (t.bits <= 16) return loom_append_uint64(dst, end, ((const uint16_t *)v)[lane]);
        if (t.bits <= 32) return loom_append_uint64(dst, end, ((const uint32_t *)v)[lane]);
        return loom_append_uint64(dst, end, ((const uint64_t *)v)[lane]);
    case loom_type_float:
        if (t.bits <= 32) return loom_append_double(dst, end, ((const float *)v)[lane], 0);
        return loom_append_double(dst, end, ((const double *)v)[lane], 1);
    default: {
        char text[32];
        snprintf(text, sizeof text, "%p", ((void *const *)v)[lane]);
        return loom_append_string(dst, end, text);
    }
    }
}

void loom_trace_event_to_string(const loom_trace_event_t *e, char *dst, size_t size) {
    char *end = dst + size;
    const int lanes = e->type.lanes > 1 ? e->type.lanes : 1;
    const int vector = lanes > 1;
    int event = e->event >= 0 && e->event <= loom_trace_tag ? e->event : loom_trace_tag;
    dst[0] = 0;
    dst = loom_append_string(dst, end, event_names[event]);
    dst = loom_append_string(dst, end, " ");
    dst = loom_append_string(dst, end, e->func);
    dst = loom_append_string(dst, end, ".");
    dst = loom_append_int64(dst, end, e->value_index);
    dst = loom_append_string(dst, end, vector ? "(<" : "(");
    for (int i = 0; i < e->dimensions; i++) {
        if (i > 0) dst = loom_append_string(dst, end, vector && i % lanes == 0 ? ">, <" : ", ");
        dst = loom_append_int64(dst, end, e->coordinates[i]);
    }
    dst = loom_append_string(dst, end, vector ? ">)" : ")");
    if (event == loom_trace_load || event == loom_trace_store) {
        dst = loom_append_string(dst, end, vector ? " = <" : " = ");
        for (int i = 0; i < lanes; i++) {
            if (i > 0) dst = loom_append_string(dst, end, ", ");
            dst = append_value(dst, end, e, i);
        }
        if (vector) dst = loom_append_string(dst, end, ">");
    }
    if (e->trace_tag && e->trace_tag[0]) {
        dst = loom_append_string(dst, end, " tag = \"");
        dst = loom_append_string(dst, end, e->trace_tag);
        dst = loom_append_string(dst, end, "\"");
    }
}

static int32_t default_trace(void *user_context, const loom_trace_event_t *event) {
    static int32_t ids = 1;
    int32_t id = __atomic_fetch_add(&ids, 1, __ATOMIC_RELAXED);
    char line[4096];
    loom_trace_event_to_string(event, line, sizeof line - 1);
    strcat(line, "\n");
    loom_print(user_context, line);
    return id;
}
