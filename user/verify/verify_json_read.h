/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify_json_read: "p2pmap verify --json"'s document (JSON.md, section
 * verify) read back with json-c, the interface env and nccl-check read:
 * its keys are stable within a schema, unlike the human text.
 */
#ifndef P2PMAP_VERIFY_JSON_READ_H
#define P2PMAP_VERIFY_JSON_READ_H

#include <stddef.h>

#include "verify_output.h"

/*
 * Appends the directions of the document in @buf (@len bytes) to @vr.
 * -EINVAL when it is not whole JSON, not verify's (a key missing or of
 * the wrong type), of a schema newer than this p2pmap's, or verify's
 * failure document: @err says which, and @vr is left as it was.
 */
int verify_json_read(const char *buf, size_t len, struct verify_output *vr,
		     char *err, size_t errlen);

#endif /* P2PMAP_VERIFY_JSON_READ_H */
