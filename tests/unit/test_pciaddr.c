// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/host/pciaddr.c */
#include <string.h>

#include "pciaddr.h"
#include "tap.h"

static void valid(const char *in, const char *want)
{
	char out[P2PMAP_ADDR_LEN] = "", err[64] = "";
	int ret = pciaddr_parse(in, out, err, sizeof(err));

	if (!tap_ok(ret == 0 && !strcmp(out, want),
		    "\"%s\" -> \"%s\"", in, want))
		printf("# got ret %d out \"%s\" err \"%s\"\n", ret, out, err);
}

static void invalid(const char *in, const char *why)
{
	char out[P2PMAP_ADDR_LEN] = "", err[64] = "";
	int ret = pciaddr_parse(in, out, err, sizeof(err));

	if (!tap_ok(ret == -1 && err[0], "\"%s\" rejected (%s)", in, why))
		printf("# got ret %d out \"%s\"\n", ret, out);
	else
		printf("# message: %s\n", err);
}

int main(void)
{
	char out[P2PMAP_ADDR_LEN];

	valid("0000:01:00.0", "0000:01:00.0");
	valid("01:00.0", "0000:01:00.0");
	valid("0000:00:1f.7", "0000:00:1f.7");
	valid("ABCD:EF:1F.7", "abcd:ef:1f.7");
	valid("aBcD:eF:1f.3", "abcd:ef:1f.3");
	valid("ffff:ff:1f.7", "ffff:ff:1f.7");
	valid("FF:1F.7", "0000:ff:1f.7");
	valid("1:2:3.4", "0001:02:03.4");
	valid("0:0.0", "0000:00:00.0");

	invalid("", "empty");
	valid("10000:00:00.0", "10000:00:00.0");	/* VMD domains */
	valid("7FFFFFFF:1:2.3", "7fffffff:01:02.3");
	invalid("80000000:00:00.0", "domain > INT_MAX");
	invalid("000000001:00:00.0", "domain of 9 digits");
	invalid("0000:001:00.0", "bus of 3 digits (the module reads 2)");
	invalid("0000:01:000.0", "device of 3 digits");
	invalid("0000:100:00.0", "bus > ff");
	invalid("0000:00:20.0", "device > 1f");
	invalid("0000:00:00.8", "function > 7");
	invalid("0000:01:00.0x", "trailing junk");
	invalid("0000:01:00.0 ", "trailing space");
	invalid("0000:01:00.0:", "trailing colon");
	invalid("0000:01:00", "no function");
	invalid("0000:01:00.", "empty function");
	invalid("0000:01.00.0", "dot for colon");
	invalid(":01:00.0", "empty domain");
	invalid("0000::00.0", "empty bus");
	invalid("0000:01:.0", "empty device");
	invalid("0000:0g:00.0", "non-hex digit");
	invalid(" 01:00.0", "leading space");
	invalid("+1:00.0", "sign");
	invalid("0000:0000:01:00.0", "too many fields");
	invalid("01", "bus only");
	invalid("ffffffffffffffffffff:00:00.0", "huge domain");

	tap_ok(pciaddr_parse(NULL, out, NULL, 0) == -1, "NULL rejected");
	tap_ok(pciaddr_parse("1:0.0", out, NULL, 0) == 0 &&
	       strlen(out) == 12,
	       "normalised address is 12 characters (DDDD:BB:DD.F)");

	return tap_done();
}
