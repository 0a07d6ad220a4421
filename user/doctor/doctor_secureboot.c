// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: will the kernel load the p2pmap DKMS built?  Under Secure Boot
 * Debian's and Proxmox VE's kernels lock down (integrity), and a locked
 * down kernel, like one with module.sig_enforce=1, loads only modules
 * signed by a key it trusts.  DKMS signs with its own key, which must be
 * enrolled as a Machine Owner Key (pve-docs, "Using DKMS/Third Party
 * Modules With Secure Boot"; DKMS 3.x prepare_mok(): /var/lib/dkms/mok.pub,
 * DER, "/CN=DKMS module signing key").  The kernel lists the keys it holds
 * in /proc/keys, an X.509 key described as "SUBJECT: SKID" (the subject
 * key identifier in hex, x509_key_preparse()): that DKMS's certificate's
 * identifier is among them is the evidence that it is enrolled, read
 * without mokutil, so under --root too.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "doctor_int.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "VERSION"
#endif

#define SB_VAR	"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define MOK_PUB	"/var/lib/dkms/mok.pub"

struct sb {
	int on;				/* 1, 0, -1 unknown */
	char state[128];		/* how it was read */
	char lockdown[32];		/* the bracketed word, "" unknown */
	char sig[8];			/* module.sig_enforce, "" unknown */
	bool enforced;
};

/* efivarfs: four attribute bytes, then the variable's one data byte. */
static void secure_boot(const struct host *h, struct sb *s)
{
	unsigned char b[5];
	size_t n = doctor_read_bytes(h, SB_VAR, b, sizeof(b));

	s->on = n == 5 ? b[4] == 1 : -1;
	if (n == 5)
		snprintf(s->state, sizeof(s->state),
			 "Secure Boot is %s (the SecureBoot EFI variable: %u)",
			 s->on ? "on" : "off", b[4]);
	else if (!doctor_exists(h, "/sys/firmware/efi"))
		s->on = 0, snprintf(s->state, sizeof(s->state),
				    "no Secure Boot (booted without UEFI: no /sys/firmware/efi)");
	else
		snprintf(s->state, sizeof(s->state),
			 "Secure Boot unknown (the SecureBoot EFI variable cannot be read)");
}

static void lockdown(const struct host *h, struct sb *s)
{
	char line[128], *open, *close;

	s->lockdown[0] = '\0';
	if (doctor_read(h, line, sizeof(line), "/sys/kernel/security/lockdown") &&
	    (open = strchr(line, '[')) && (close = strchr(open, ']')))
		snprintf(s->lockdown, sizeof(s->lockdown), "%.*s",
			 (int)(close - open - 1), open + 1);
	if (!doctor_read(h, s->sig, sizeof(s->sig),
			 "/sys/module/module/parameters/sig_enforce"))
		s->sig[0] = '\0';
	s->enforced = s->sig[0] == 'Y' ||
		      (s->lockdown[0] && strcmp(s->lockdown, "none")) ||
		      (!s->lockdown[0] && s->on == 1);
}

/* The certificate DKMS signs with: framework.conf's, else its default. */
static void mok_path(const struct host *h, char *buf, size_t len)
{
	char path[PATH_MAX], line[512], *v;
	FILE *f;

	snprintf(buf, len, "%s", MOK_PUB);
	snprintf(path, sizeof(path), "%s/etc/dkms/framework.conf", h->root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "mok_certificate=", 16))
			continue;
		v = line + 16 + strspn(line + 16, "\"'");
		v[strcspn(v, "\"'\n")] = '\0';
		if (v[0] == '/')
			snprintf(buf, len, "%s", v);
	}
	if (f)
		fclose(f);
}

/* The subject key identifier of DER certificate ROOT/REL, in hex. */
static bool cert_skid(const struct host *h, const char *rel, char *hex,
		      size_t len)
{
	static const unsigned char oid[] = { 0x06, 0x03, 0x55, 0x1d, 0x0e };
	unsigned char der[8192], *p = NULL;
	size_t n = doctor_read_bytes(h, rel, der, sizeof(der)), i, k;

	for (i = 0; i + sizeof(oid) + 4 < n && !p; i++)
		if (!memcmp(der + i, oid, sizeof(oid)))
			p = der + i + sizeof(oid);
	if (p && p[0] == 0x01)			/* critical: BOOLEAN */
		p += 3;
	/* OCTET STRING { OCTET STRING skid } */
	if (!p || p + 4 > der + n || p[0] != 0x04 || p[2] != 0x04 ||
	    p + 4 + p[3] > der + n || !p[3] || 2 * p[3] >= len)
		return false;
	for (k = 0; k < p[3]; k++)
		snprintf(hex + 2 * k, 3, "%02x", p[4 + k]);
	return true;
}

/* The /proc/keys description holding @skid; false: none (@any: keys seen). */
static bool key_held(const struct host *h, const char *skid, char *desc,
		     size_t len, bool *any)
{
	char path[PATH_MAX], line[1024], *d, *end;
	bool found = false;
	FILE *f;

	*any = false;
	snprintf(path, sizeof(path), "%s/proc/keys", h->root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f) && !found) {
		d = strstr(line, " asymmetri");
		if (!d)
			continue;
		*any = true;
		end = strstr(d, skid);
		if (!end)
			continue;
		d += strcspn(d + 1, " ") + 1;
		d += strspn(d, " ");
		snprintf(desc, len, "%.*s", (int)(end - d + strlen(skid)), d);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

static void enrolled(struct host *h, const struct sb *s, const char *why)
{
	char cert[256], skid[130], desc[256], fix[512];
	bool any;

	mok_path(h, cert, sizeof(cert));
	snprintf(fix, sizeof(fix),
		 "mokutil --import %s (it asks a one-time password), reboot, and in the MOK manager choose Enroll MOK with that password%s",
		 cert, doctor_exists(h, cert) ? "" :
		 "; first dkms generate_mok, then dkms install --force p2pmap/" P2PMAP_VERSION " to sign the module");
	if (!doctor_exists(h, cert)) {
		doctor_add(h, "p2pmap.secureboot", DOCTOR_WARN, fix,
			   "%s; %s: the kernel loads only signed modules, and DKMS has no signing certificate (%s): the p2pmap it built is unsigned and refused",
			   s->state, why, cert);
	} else if (!cert_skid(h, cert, skid, sizeof(skid))) {
		doctor_add(h, "p2pmap.secureboot", DOCTOR_WARN, fix,
			   "%s; %s: the kernel loads only modules signed by a key it trusts, and %s has no subject key identifier to look for (not DER?): mokutil --test-key %s says whether it is enrolled",
			   s->state, why, cert, cert);
	} else if (key_held(h, skid, desc, sizeof(desc), &any)) {
		doctor_add(h, "p2pmap.secureboot", DOCTOR_OK, NULL,
			   "%s; %s: the kernel holds DKMS's key %s (/proc/keys: \"%s\"), so it loads the p2pmap DKMS signs",
			   s->state, why, cert, desc);
	} else {
		doctor_add(h, "p2pmap.secureboot", DOCTOR_WARN, fix,
			   "%s; %s: the kernel loads only modules signed by a key it trusts, and %s (key identifier %s) is not among /proc/keys%s: modprobe p2pmap is refused (\"Key was rejected by service\")",
			   s->state, why, cert, skid,
			   any ? "" : " (no key there is visible: run as root, or mokutil --test-key)");
	}
}

void doctor_check_secureboot(struct host *h)
{
	char why[160];
	struct sb s;

	if (!h->loaded && doctor_need_count(h) < 2 &&
	    !doctor_exists(h, DOCTOR_DKMS_DIR))
		return;
	secure_boot(h, &s);
	lockdown(h, &s);
	snprintf(why, sizeof(why), "lockdown %s, module.sig_enforce %s",
		 s.lockdown[0] ? s.lockdown :
		 s.on == 1 ? "unread (assumed integrity, as Debian's and Proxmox VE's kernels under Secure Boot)" :
		 "unread", s.sig[0] ? s.sig : "unread");
	if (s.enforced)
		enrolled(h, &s, why);
	else if (s.on == -1 && !s.lockdown[0])
		doctor_add(h, "p2pmap.secureboot", DOCTOR_SKIP, NULL,
			   "%s; %s: whether the kernel requires signed modules is not known",
			   s.state, why);
	else
		doctor_add(h, "p2pmap.secureboot", DOCTOR_OK, NULL,
			   "%s; %s: the kernel loads p2pmap unsigned",
			   s.state, why);
}
