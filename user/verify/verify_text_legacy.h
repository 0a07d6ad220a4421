/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify_text_legacy: reads the HUMAN text "p2pmap verify" printed, as
 * files users saved before env and nccl-check read its --json document
 * (p2pmap verify > verify.txt).  Kept only so that those files still
 * work: new readers take the JSON document (verify_json_read.h), and the
 * text is free to change; this reader follows the text of p2pmap 0.x up
 * to the change, not any later wording.
 *
 * One line per direction: "GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0):
 * works[ ...]", and with --bandwidth "bandwidth GPU0 (...) -> GPU1 (...):
 * ...", flagged "STAGED through host memory" when its copies went through
 * the host.
 */
#ifndef P2PMAP_VERIFY_TEXT_LEGACY_H
#define P2PMAP_VERIFY_TEXT_LEGACY_H

#include <stdio.h>

#include "verify_output.h"

/* Appends @f's verdicts to @vr; lines it does not know are skipped. */
void verify_text_legacy_read(FILE *f, struct verify_output *vr);

#endif /* P2PMAP_VERIFY_TEXT_LEGACY_H */
