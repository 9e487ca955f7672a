/* Logging: one line per event on stderr, prefixed with the rank. */
#ifndef RM_UTIL_LOG_H
#define RM_UTIL_LOG_H

#include <stdarg.h>

enum { RM_LOG_ERROR = 0, RM_LOG_WARN = 0, RM_LOG_INFO = 1, RM_LOG_DEBUG = 2 };

extern int rm_log_level; /* set from RAILMPI_VERBOSE by the config table */
extern int rm_log_rank;  /* -1 until known */

void rm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rm_vlog(int level, const char *fmt, va_list ap);

#define rm_log_error(...) rm_log(RM_LOG_ERROR, __VA_ARGS__)
#define rm_log_warn(...) rm_log(RM_LOG_WARN, __VA_ARGS__)
#define rm_log_info(...) do { if (rm_log_level >= RM_LOG_INFO) rm_log(RM_LOG_INFO, __VA_ARGS__); } while (0)
#define rm_log_debug(...) do { if (rm_log_level >= RM_LOG_DEBUG) rm_log(RM_LOG_DEBUG, __VA_ARGS__); } while (0)

#endif
