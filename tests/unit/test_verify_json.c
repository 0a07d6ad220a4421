// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for reading verify's results back (user/verify/
 * verify_json_read.c, verify_output.c): a whole --json document, and the
 * ones that must decide nothing: every truncation, a required key
 * missing or of the wrong type, another schema, verify's failure
 * document, two documents; a later verdict taken as "not works"; an older
 * document (no write/read, paths, size); a JSON file and the legacy text
 * of the same run read alike (the first non-space character decides).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "verify_json_read.h"
#include "verify_output.h"

/*
 * Two directions of --paths copy,sm,cumem: 0 -> 1 works; 1 -> 0's write
 * faulted (a BAR hit).
 */
static const char doc[] =
	"{\"schema\":1,\"directions\":["
	"{\"from\":0,\"to\":1,\"from_pci\":\"0000:01:00.0\",\"to_pci\":\"0000:41:00.0\","
	"\"size\":4194304,\"timeout_s\":60,\"verdict\":\"works\","
	"\"faults_before\":0,\"faults_after\":0,\"last_fault\":null,"
	"\"cuda_error\":null,\"cuda_call\":null,\"cuda_code\":null,\"data_ok\":true,"
	"\"first_wrong_byte\":null,\"bandwidth\":null,"
	"\"decided_by\":\"copy\",\"paths\":{\"copy\":{\"verdict\":\"works\"},"
	"\"sm\":{\"verdict\":\"works\"},\"ipc\":null,\"cumem\":{\"verdict\":\"works\"}},"
	"\"frameworks\":{\"nccl\":true,\"vllm\":null,\"sglang\":null}},"
	"{\"from\":1,\"to\":0,\"from_pci\":\"0000:41:00.0\",\"to_pci\":\"0000:01:00.0\","
	"\"size\":4194304,\"timeout_s\":60,\"verdict\":\"faulted\","
	"\"bandwidth\":{\"measured\":true,\"looks_staged\":true,\"gated\":true},"
	"\"write\":{\"verdict\":\"faulted\",\"faults_before\":0,\"faults_after\":3,"
	"\"last_fault\":{\"addr\":\"0xe0001000\",\"bar\":{\"device\":\"0000:01:00.0\","
	"\"bar\":0,\"offset\":\"0x1000\",\"role\":\"registers/mailbox\"}},"
	"\"cuda_error\":null,\"cuda_call\":null,\"cuda_code\":null,\"data_ok\":false,"
	"\"first_wrong_byte\":0},"
	"\"read\":{\"verdict\":\"works\",\"faults_before\":3,\"faults_after\":3,"
	"\"last_fault\":null,\"cuda_error\":null,\"cuda_call\":null,"
	"\"cuda_code\":null,\"data_ok\":true,\"first_wrong_byte\":null},"
	"\"decided_by\":\"copy\",\"paths\":{\"copy\":{\"verdict\":\"faulted\"},"
	"\"sm\":{\"verdict\":\"faulted\"},\"ipc\":null,"
	"\"cumem\":{\"verdict\":\"faulted\"}},"
	"\"frameworks\":{\"nccl\":false,\"vllm\":null,\"sglang\":null}}],"
	"\"summary\":{\"directions\":2,\"working\":1,\"not_tested\":null},"
	"\"device_order\":\"FASTEST_FIRST\",\"vllm_cache\":null,\"sglang_cache\":null}\n";

static struct verify_output vr;
static char err[512];

static int read_str(const char *s)
{
	err[0] = '\0';
	return verify_json_read(s, strlen(s), &vr, err, sizeof(err));
}

/* @s with the first @from replaced by @to; static, one at a time. */
static const char *edit(const char *s, const char *from, const char *to)
{
	static char buf[sizeof(doc) + 256];
	const char *at = strstr(s, from);

	if (!at)
		return "(edit: not found)";
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - s), s, to,
		 at + strlen(from));
	return buf;
}

/* Refused with @what in the message, nothing read. */
static void refused(const char *s, const char *what, const char *desc)
{
	int ret;

	vr.n = 0;
	ret = read_str(s);
	tap_ok(ret == -EINVAL && vr.n == 0 && strstr(err, what),
	       "%s: refused, nothing read (\"%s\")", desc, err);
}

static void test_whole(void)
{
	const struct verify_line *a, *b;

	vr.n = 0;
	tap_ok(read_str(doc) == 0 && vr.n == 2, "a whole document: two directions (%s)",
	       err);
	a = verify_output_find(&vr, "0000:01:00.0", "0000:41:00.0");
	b = verify_output_find(&vr, "0000:41:00.0", "0000:01:00.0");
	tap_ok(a && !strcmp(a->what, "works") && !a->detail[0] &&
	       a->from_gpu == 0 && a->to_gpu == 1 && !a->looks_staged,
	       "0 -> 1: works, no detail, GPU0 -> GPU1");
	tap_ok(a && a->has_paths && verify_line_fw(a, VERIFY_FW_NCCL) == 1 &&
	       verify_line_fw(a, VERIFY_FW_VLLM) == -1 &&
	       !strcmp(verify_line_path(a, VERIFY_PATH_CUMEM), "works") &&
	       !verify_line_path(a, VERIFY_PATH_IPC),
	       "... each path's verdict (ipc not run), each framework's (null: not tested)");
	tap_ok(b && !strcmp(b->what, "faulted") &&
	       !strcmp(b->detail, "[write: faulted (p2pmap fault counter 0 -> 3, data wrong; last fault at 0xe0001000: 0000:01:00.0 BAR0+0x1000 (registers/mailbox)); read: works]"),
	       "1 -> 0: faulted, worded as verify words it from the fields (%s)",
	       b ? b->detail : "none");
	tap_ok(b && b->looks_staged && verify_line_fw(b, VERIFY_FW_NCCL) == 0,
	       "... --bandwidth's looks_staged (gated) taken, not for NCCL");
}

static void test_truncated(void)
{
	size_t len, bad = 0;
	int ret;

	/* Every prefix but the whole (the newline after it is optional). */
	for (len = 0; len < strlen(doc) - 1; len++) {
		vr.n = 0;
		ret = verify_json_read(doc, len, &vr, err, sizeof(err));
		if (ret != -EINVAL || vr.n || !err[0])
			bad++;
	}
	tap_ok(!bad, "every truncation of the document (%zu): refused, nothing read",
	       strlen(doc) - 1);
	vr.n = 0;
	verify_json_read(doc, strlen(doc) / 2, &vr, err, sizeof(err));
	tap_ok(strstr(err, "truncated") != NULL, "... said: \"%s\"", err);
}

static void test_refused(void)
{
	refused(edit(doc, "\"schema\":1,", ""), "no \"schema\"", "no schema");
	refused(edit(doc, "\"schema\":1", "\"schema\":2"), "\"schema\": 2, this p2pmap reads schema 1",
		"schema 2");
	refused(edit(doc, "\"schema\":1", "\"schema\":\"1\""), "no \"schema\" number",
		"schema as a string");
	refused(edit(doc, "\"directions\":[", "\"direction\":["), "\"directions\" is missing",
		"no directions");
	refused(edit(doc, "\"from_pci\":\"0000:01:00.0\",", ""), "directions[0]: \"from_pci\" is missing",
		"a direction without from_pci");
	refused(edit(doc, "\"to_pci\":\"0000:01:00.0\"", "\"to_pci\":7"),
		"directions[1]: \"to_pci\" is not a string", "to_pci a number");
	refused(edit(doc, "\"from_pci\":\"0000:01:00.0\"", "\"from_pci\":\"01:00.0\""),
		"directions[0]: \"from_pci\" or \"to_pci\" is not a PCI address",
		"a PCI address without its domain");
	refused(edit(doc, "\"verdict\":\"faulted\",\"bandwidth\"", "\"bandwidth\""),
		"directions[1]: \"verdict\" is missing", "a direction without its verdict");
	refused(edit(doc, "\"from\":1,", "\"from\":-1,"), "\"from\" is not a CUDA ordinal",
		"a negative ordinal");
	refused(edit(doc, "\"faults_after\":3", "\"faults_after\":\"3\""),
		"\"faults_after\" is not a count", "a count as a string");
	refused(edit(doc, "\"addr\":\"0xe0001000\"", "\"addr\":\"e0001000\""),
		"\"addr\" is not a hex address", "an address without 0x");
	refused("{\"schema\": 1, \"error\": \"p2pmap verify: no CUDA devices\", \"exit_code\": 3, \"directions\": []}",
		"p2pmap verify failed, it tested nothing: p2pmap verify: no CUDA devices",
		"verify's failure document");
	refused(edit(doc, "}\n", "}{\"schema\":1}"), "more than one JSON document",
		"two documents");
	refused("[1, 2]", "not a JSON object", "an array");
	refused("{\"schema\":1,\"directions\":[} ", "not valid JSON", "broken JSON");
}

static void test_appends(void)
{
	vr.n = 0;
	read_str(doc);
	read_str(edit(doc, "\"schema\":1", "\"schema\":3"));
	tap_ok(vr.n == 2, "a refused document after a read one: the first's %zu directions kept, none added",
	       vr.n);
}

static void test_lenient(void)
{
	const struct verify_line *v;

	vr.n = 0;
	tap_ok(read_str(edit(doc, "\"verdict\":\"works\",\"faults_before\":0",
			     "\"verdict\":\"melted_down\",\"faults_before\":0")) == 0 &&
	       !strcmp(vr.v[0].what, "melted down") && !vr.v[0].detail[0],
	       "a verdict this p2pmap does not know: read, in words, not \"works\"");
	vr.n = 0;
	tap_ok(read_str(edit(doc, "\"from_pci\":\"0000:01:00.0\"",
			     "\"from_pci\":\"10000:01:00.0\"")) == 0 &&
	       !strcmp(vr.v[0].from, "10000:01:00.0"),
	       "a PCI domain of five digits (a VMD domain): read (%s)", err);
	/* Before write/read, paths, size: the direction's own fields. */
	vr.n = 0;
	tap_ok(read_str("{\"schema\":1,\"directions\":[{\"from\":0,\"to\":1,"
			"\"from_pci\":\"0000:01:00.0\",\"to_pci\":\"0000:41:00.0\","
			"\"verdict\":\"wrong_data\",\"faults_before\":null,"
			"\"faults_after\":null,\"cuda_error\":null,\"data_ok\":false}]}") == 0,
	       "an older document (no write, read, paths, size, decided_by): read (%s)",
	       err);
	v = &vr.v[0];
	tap_ok(vr.n == 1 && !strcmp(v->what, "wrong data") &&
	       !strcmp(v->detail, "(data read back wrong)") && !v->has_paths &&
	       verify_line_fw(v, VERIFY_FW_NCCL) == -1,
	       "... wrong data, its detail without the size, paths unknown (%s)",
	       v->detail);
}

/* The same run's text and JSON through verify_output_read(). */
static void test_auto_detect(void)
{
	static const char text[] =
		"GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0): works\n"
		"  paths: copy works, sm works, cumem works\n"
		"  works for: NCCL; not tested for: vLLM, SGLang\n"
		"GPU1 (0000:41:00.0) -> GPU0 (0000:01:00.0): faulted [write: faulted (p2pmap fault counter 0 -> 3, data wrong; last fault at 0xe0001000: 0000:01:00.0 BAR0+0x1000 (registers/mailbox)); read: works]\n"
		"  paths: copy faulted, sm faulted, cumem faulted\n"
		"  not for: NCCL; not tested for: vLLM, SGLang\n"
		"bandwidth GPU1 (0000:41:00.0) -> GPU0 (0000:01:00.0): 7.00 GB/s: STAGED through host memory (...)\n"
		"verify: 2 directions, 1 work on the paths run (copy, sm, cumem)\n";
	static struct verify_output t;
	char jpath[] = "/tmp/p2pmap-vjXXXXXX", tpath[] = "/tmp/p2pmap-vtXXXXXX";
	int jfd = mkstemp(jpath), tfd = mkstemp(tpath), p, same = 1;
	size_t i;

	if (jfd < 0 || tfd < 0 || write(jfd, "\n \t", 3) != 3 ||
	    write(jfd, doc, strlen(doc)) != (ssize_t)strlen(doc) ||
	    write(tfd, text, strlen(text)) != (ssize_t)strlen(text)) {
		tap_ok(false, "temporary files");
		return;
	}
	close(jfd);
	close(tfd);
	vr.n = t.n = 0;
	tap_ok(!verify_output_read(jpath, &vr, err, sizeof(err)) &&
	       !verify_output_read(tpath, &t, err, sizeof(err)) &&
	       vr.n == 2 && t.n == 2,
	       "a JSON file after white space and a text file: both read");
	for (i = 0; i < 2 && vr.n == 2 && t.n == 2; i++) {
		same &= !strcmp(vr.v[i].what, t.v[i].what) &&
			!strcmp(vr.v[i].detail, t.v[i].detail) &&
			vr.v[i].looks_staged == t.v[i].looks_staged &&
			vr.v[i].has_paths == t.v[i].has_paths;
		for (p = 0; p < VERIFY_NR_FW; p++)
			same &= vr.v[i].fw[p] == t.v[i].fw[p];
		for (p = 0; p < VERIFY_NR_PATHS; p++)
			same &= !strcmp(vr.v[i].path_what[p], t.v[i].path_what[p]);
	}
	tap_ok(same, "... alike: verdicts, details, paths, frameworks, staged");
	unlink(jpath);
	unlink(tpath);
	vr.n = 0;
	tap_ok(verify_output_read("/nonexistent/verify.json", &vr, err,
				  sizeof(err)) == -ENOENT && strstr(err, "No such file"),
	       "a missing file: -ENOENT, said");
}

int main(void)
{
	test_whole();
	test_truncated();
	test_refused();
	test_appends();
	test_lenient();
	test_auto_detect();
	return tap_done();
}
