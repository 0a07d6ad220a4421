// SPDX-License-Identifier: GPL-2.0
/*
 * p2prot [-p PAUSEFILE] STOPFILE SECONDS INITIATOR>TARGET...: rotate links, as fast as
 * netlink allows, for tests/guest/races.sh.  For k = 0, 1, ...: delete link
 * k (mod the count) and add it again, which moves it from the front of
 * p2pmap's link list to the back, so the links stay a rotation of their
 * cyclic order.  A shell loop of CLI runs changes the list a few times a
 * second under TCG; this changes it hundreds of times a second, so that
 * the kernel's multi-part dumps really do get interrupted.  Stops when
 * STOPFILE exists or SECONDS have passed.  While PAUSEFILE exists it does
 * not rotate (10 s at most each time): under the debug kernel one rotation
 * is quicker than one whole status read, so without a pause no status read
 * ever completes.  Prints "p2prot: rotations=N add_retries=M pauses=P";
 * exit 1 if a link could not be added
 * back (the rotation order is then broken and the dump check void).
 * Built from the CLI's netlink code (user/netlink/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "link.h"
#include "nl.h"

int main(int argc, char **argv)
{
	unsigned long rot = 0, retries = 0, pauses = 0;
	const char *pause = NULL;
	struct p2pmap_nl nl;
	time_t end;
	int n, k = 0, tries;

	if (argc > 2 && !strcmp(argv[1], "-p")) {
		pause = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: p2prot [-p PAUSEFILE] STOPFILE SECONDS INITIATOR>TARGET...\n");
		return 2;
	}
	end = time(NULL) + atoi(argv[2]);
	n = argc - 3;
	if (pnl_open_required(&nl))
		return 2;
	while (time(NULL) < end && access(argv[1], F_OK)) {
		char a[32], *b;

		if (pause && !access(pause, F_OK)) {
			time_t until = time(NULL) + 10;

			pauses++;
			while (!access(pause, F_OK) && time(NULL) < until &&
			       access(argv[1], F_OK))
				usleep(10000);
		}
		snprintf(a, sizeof(a), "%s", argv[3 + k]);
		b = strchr(a, '>');
		if (!b)
			return 2;
		*b++ = '\0';
		link_del(&nl, a, b);
		for (tries = 0; link_add(&nl, a, b, false, 0); tries++) {
			if (tries == 100) {
				pnl_perror(&nl.error, "link add");
				printf("p2prot: rotations=%lu add_retries=%lu pauses=%lu lost=%s>%s\n",
				       rot, retries, pauses, a, b);
				return 1;
			}
			retries++;
		}
		rot++;
		k = (k + 1) % n;
	}
	printf("p2prot: rotations=%lu add_retries=%lu pauses=%lu\n",
	       rot, retries, pauses);
	pnl_close(&nl);
	return 0;
}
