/* daemon/target_fields.h: the fields of struct tt_target_config, once: their key in the
 * configuration file (config.c), their command-line option (opts.c) and whether a reload that
 * changes them restarts the target (supervisor.c). Pure data; no I/O. */
#ifndef TT_TARGET_FIELDS_H
#define TT_TARGET_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "target.h"

enum tt_field_type {
	TT_FIELD_STR,   /* const char * */
	TT_FIELD_BOOL,  /* bool */
	TT_FIELD_U64,   /* uint64_t: a number or a "0x..." string in the file */
	TT_FIELD_INT,   /* int */
	TT_FIELD_UINT,  /* unsigned or uint32_t */
	TT_FIELD_ARGV,  /* const char *const *, NULL-terminated */
};

/* Which commands take a field's option through daemon/opts.h. */
enum tt_field_cli {
	TT_CLI_OWN,       /* parsed by the command itself (tracetapd: --name, --probe, ...) */
	TT_CLI_ARG,       /* every command that reads a target, with an argument */
	TT_CLI_LIVE_ARG,  /* tracetapd only (polling), with an argument */
	TT_CLI_LIVE_FLAG, /* tracetapd only, without an argument */
};

struct tt_target_field {
	const char *key;        /* in the configuration file's target objects */
	const char *option;     /* command-line option without "--" ("f/c": -f FILE, -c CMD) */
	enum tt_field_cli cli;
	enum tt_field_type type;
	size_t off;             /* in struct tt_target_config */
	bool restart;           /* a changed value restarts the target on reload */
};

extern const struct tt_target_field tt_target_fields[];
extern const size_t tt_target_nfields;

/* Two optional strings are the same (NULL is the same only as NULL). */
bool tt_field_str_eq(const char *a, const char *b);
/* Whether a and b differ in a field whose change needs a restart. */
bool tt_target_fields_differ(const struct tt_target_config *a, const struct tt_target_config *b);

#endif
