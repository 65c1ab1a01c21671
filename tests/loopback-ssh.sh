#!/usr/bin/env bash
# tests/loopback-ssh.sh start|stop DIR: a second libvirt endpoint for the
# many-hosts tests, reached over libvirt's remote protocol (qemu+ssh) on
# loopback: a throwaway sshd on 127.0.0.1 only, with its own host key,
# config and a key made for the test; nothing of the machine's ssh setup
# is read or changed. `start` prints the URI to put in hosts.ini.
set -euo pipefail
cmd=${1:?start|stop} dir=${2:?directory}
port=${LAB_SSH_PORT:-2299}

if [ "$cmd" = stop ]; then
	[ -f "$dir/sshd.pid" ] && kill "$(cat "$dir/sshd.pid")" 2>/dev/null
	rm -f "$dir/sshd.pid"
	exit 0
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
# the client side: the test's key and known_hosts, never ~/.ssh
printf '127.0.0.1 %s\n' "$(cut -d' ' -f1,2 "$dir/host_key.pub")" | sed "s/^127.0.0.1/[127.0.0.1]:$port/" >"$dir/known_hosts"
cat >"$dir/ssh" <<WRAP
#!/bin/sh
exec ssh -F none -o UserKnownHostsFile=$dir/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes "\$@"
WRAP
chmod 755 "$dir/ssh"
mkdir -p /run/sshd
/usr/sbin/sshd -f "$dir/sshd_config"
echo "qemu+ssh://root@127.0.0.1:$port/system?keyfile=$dir/id&command=$dir/ssh"
