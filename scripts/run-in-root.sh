#!/usr/bin/env bash
# Runs a command inside a root that scripts/ha-root.sh built, as root:
#   run-in-root.sh ROOT CONFIG_DIR COMMAND [ARG...]
# In a mount namespace of its own (unshare -m), so the mounts vanish with the process: /proc, /dev,
# the host's /tmp, and CONFIG_DIR at the same path, so paths mean the same on both sides. The
# network is the host's (Home Assistant answers on the host's loopback). The last step execs, so
# the caller's process is the command itself and its signals (SIGTERM to stop) reach it.
set -euo pipefail
if [ "$#" -lt 3 ]; then
  echo "usage: run-in-root.sh ROOT CONFIG_DIR COMMAND [ARG...]" >&2
  exit 2
fi
if [ -z "${HOME_AGENT_IN_NAMESPACE:-}" ]; then
  HOME_AGENT_IN_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
fi
root=$1
config=$(realpath "$2")
shift 2
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --bind /tmp "$root/tmp"
case "$config" in
  /tmp/*) ;;
  *)
    mkdir -p "$root$config"
    mount --bind "$config" "$root$config"
    ;;
esac
unset HOME_AGENT_IN_NAMESPACE
exec chroot "$root" "$@"
