/* SPDX-License-Identifier: MIT */
/*
 * A small JSON writer: objects, strings escaped as RFC 8259 requires,
 * numbers, booleans, null; no spaces (one line).  Commas are its job, not
 * the caller's.  Every value takes the key it has in the enclosing object,
 * or NULL at the top level.
 *
 * Strings are bytes: '"', '\\' and control characters are escaped, and
 * so is every byte >= 0x7f (as \u00XX), so that the output is plain
 * ASCII and valid whatever a name from KVM holds.
 */
#ifndef PVSMM_JSON_H
#define PVSMM_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	8

struct json {
	FILE *f;
	unsigned int depth;
	bool first[JSON_MAX_DEPTH];	/* no member written yet at depth */
};

void json_init(struct json *j, FILE *f);
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_int(struct json *j, const char *key, int v);
void json_string(struct json *j, const char *key, const char *s);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

#endif
