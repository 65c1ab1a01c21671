#!/usr/bin/env bash
# tests/loopback-ssh.sh start|stop DIR: a second libvirt endpoint for the
# many-hosts tests, reached over libvirt's remote protocol (qemu+libssh) on
# loopback: a throwaway sshd on 127.0.0.1 only, with its own host key,
# config and a key made for the test; nothing of the machine's ssh setup
# is read or changed. `start` prints the URI to put in hosts.ini.
set -euo pipefail
cmd=${1:?start|stop} dir=${2:?directory}
port=${LAB_SSH_PORT:-}

# busy PORT: something listens there (another test's sshd, say)
busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if [ "$cmd" = stop ]; then
	[ -f "$dir/sshd.pid" ] && kill "$(cat "$dir/sshd.pid")" 2>/dev/null
	rm -f "$dir/sshd.pid"
	exit 0
fi
if [ -z "$port" ]; then # the first free port from 2299 on
	port=2299
	while busy "$port"; do
		port=$((port + 1))
		[ "$port" -lt 2399 ] || { echo "loopback-ssh: no free port in 2299..2398" >&2; exit 1; }
	done
fi
mkdir -p "$dir"
chmod 700 "$dir"
[ -f "$dir/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
[ -f "$dir/id" ] || ssh-keygen -q -t ed25519 -N '' -f "$dir/id"
cp "$dir/id.pub" "$dir/authorized_keys"
cat >"$dir/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
CONF
# the client side: the test's key and known_hosts, never ~/.ssh; libvirt's
# libssh transport reads both from the URI, so hosts.ini needs no program
# of its own (command=)
printf '127.0.0.1 %s\n' "$(cut -d' ' -f1,2 "$dir/host_key.pub")" | sed "s/^127.0.0.1/[127.0.0.1]:$port/" >"$dir/known_hosts"
mkdir -p /run/sshd
/usr/sbin/sshd -f "$dir/sshd_config"
# ours must be the one that answers (a port taken meanwhile: fail here)
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -s "$dir/sshd.pid" ] && kill -0 "$(cat "$dir/sshd.pid")" 2>/dev/null && break
	sleep 0.2
done
kill -0 "$(cat "$dir/sshd.pid" 2>/dev/null)" 2>/dev/null || { echo "loopback-ssh: sshd did not start on port $port" >&2; exit 1; }
echo "qemu+libssh://root@127.0.0.1:$port/system?keyfile=$dir/id&known_hosts=$dir/known_hosts&known_hosts_verify=normal&sshauth=privkey&no_tty=1"
