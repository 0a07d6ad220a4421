# shellcheck shell=bash
# fs-snapshot.sh, sourced by tests/install/run.sh and tests/package/run.sh:
#   snapshot   every file and symlink under /usr /etc /lib/modules
#              /var/lib/dkms, sorted, for a before/after comparison of an
#              install and its removal.  Left out: dkms's own module-signing
#              key /var/lib/dkms/mok.{key,pub} (it belongs to dkms, made by
#              the first signed build) and */__pycache__/* (whatever runs
#              Python meanwhile).
snapshot() {
	find /usr /etc /lib/modules /var/lib/dkms \
		\( -type f -o -type l \) 2>/dev/null |
		grep -vE '^/var/lib/dkms/mok\.(key|pub)$|/__pycache__/' | sort
}
