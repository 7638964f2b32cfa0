# shellcheck shell=bash
# The one test topology, sourced by scripts running inside the test VM
# (tests/vm/run.sh):
#
#   client netns  ──veth──  router (VM root netns)  ──veth──  server netns
#   10.0.1.2/24              10.0.1.1 | 10.0.2.1               10.0.2.2/24
#   fd00:1::2/64             fd00:1::1 | fd00:2::1             fd00:2::2/64
#
# The router forwards (v4 and v6) with FORWARD policy DROP, except
# ESTABLISHED,RELATED and NEW to the protocol's control port(s) (see
# topo_firewall; FTP's tcp/21 by default): a data connection passes only if
# a helper created an expectation for it.
#
#   topo_setup                  modules, namespaces, addresses, firewall (ftp)
#   topo_firewall ftp|sip|tnsrpc|toy  which NEW connections FORWARD admits and
#                               which ports topo_ct_add hands to the helper
#   topo_mode plain|masq|dnat|masq6   routing/NAT variant (see topo_mode)
#   topo_replay_nat 4|6         that variant's NAT as cthelper-replay options
#   topo_ct_add NAME [ZONE]     raw PREROUTING "CT --helper NAME" for the
#                               control port(s) (tcp/21 for ftp);
#                               with ZONE every connection of the topology
#                               (both interfaces, v4 and v6) lives in that
#                               conntrack zone
#   topo_ct_add_port NAME PROTO:PORT [4|6|46]
#                               raw PREROUTING "CT --helper NAME" for one
#                               port only (profiles whose ports go to
#                               different helpers, e.g. tnsrpc); families:
#                               4, 6 or 46 (default)
#   topo_ct_del                 remove those rules (before deleting a helper!)
#   topo_flush_conntrack        forget connections and expectations
#   topo_assert_no_kernel_helper NAME   fail loudly if nf_conntrack_NAME
#                               (or nf_nat_NAME) is loaded
#   topo_assert_no_kernel_ftp   the same for ftp
#   in_client CMD... / in_server CMD...
#   topo_teardown
#
# Functions return non-zero and print "topo: ..." on stderr on failure.

TOPO_CL_NS=cth-client
TOPO_SV_NS=cth-server
CL4=10.0.1.2 R_CL4=10.0.1.1 SV4=10.0.2.2 R_SV4=10.0.2.1
CL6=fd00:1::2 R_CL6=fd00:1::1 SV6=fd00:2::2 R_SV6=fd00:2::1
# What the client dials for the server in the current mode (topo_mode),
# and the current mode; both read by the sourcing script.
export SV4_DIAL=$SV4 TOPO_MODE=

IPT=${IPT:-iptables-legacy}
IP6T=${IP6T:-ip6tables-legacy}

topo_err() { echo "topo: $*" >&2; return 1; }

# nsenter rather than "ip netns exec": the latter remounts /sys, which
# costs about a second per call under TCG.
in_client() { nsenter --net="/run/netns/$TOPO_CL_NS" "$@"; }
in_server() { nsenter --net="/run/netns/$TOPO_SV_NS" "$@"; }

# Everything a scenario needs, loaded up front: autoload works in the VM,
# but a module that fails to load should fail here, loudly, not as a rule
# that silently does nothing.
# sch_netem: duplicated packets (tc ... netem duplicate); xt_length: the
# counter that shows whether a GSO packet reached the router.
TOPO_MODULES="veth nf_conntrack nf_nat nf_conntrack_netlink nfnetlink_queue
 nfnetlink_cthelper x_tables xt_tcpudp xt_CT xt_conntrack xt_nat xt_MASQUERADE
 xt_length ip_tables iptable_raw iptable_filter iptable_nat
 ip6_tables ip6table_raw ip6table_filter ip6table_nat sch_netem"

# One modprobe for all: each run reads the module indexes over 9p.
topo_modules() {
	# shellcheck disable=SC2086
	modprobe -a $TOPO_MODULES || topo_err "modprobe -a $TOPO_MODULES failed"
}

# While the kernel's own helper is loaded, registering a user-space helper
# of the same name fails with EBUSY.
topo_assert_no_kernel_helper() {
	local name=$1
	if grep -qE "^nf_(conntrack|nat)_$name " /proc/modules; then
		topo_err "nf_conntrack_$name is loaded: a user-space $name helper cannot be tested ($(grep -E "^nf_(conntrack|nat)_$name " /proc/modules | tr '\n' ' '))"
		return 1
	fi
}
topo_assert_no_kernel_ftp() { topo_assert_no_kernel_helper ftp; }

topo_setup() {
	topo_modules || return 1
	topo_teardown 2>/dev/null
	ip netns add "$TOPO_CL_NS" || return 1
	ip netns add "$TOPO_SV_NS" || return 1
	ip link add r-cl type veth peer name eth0 netns "$TOPO_CL_NS" || return 1
	ip link add r-sv type veth peer name eth0 netns "$TOPO_SV_NS" || return 1

	# nodad: no 1-2 s wait for duplicate address detection per address.
	ip addr add "$R_CL4/24" dev r-cl
	ip addr add "$R_SV4/24" dev r-sv
	ip -6 addr add "$R_CL6/64" dev r-cl nodad
	ip -6 addr add "$R_SV6/64" dev r-sv nodad
	ip link set r-cl up
	ip link set r-sv up
	ip -n "$TOPO_CL_NS" addr add "$CL4/24" dev eth0
	ip -n "$TOPO_CL_NS" -6 addr add "$CL6/64" dev eth0 nodad
	ip -n "$TOPO_SV_NS" addr add "$SV4/24" dev eth0
	ip -n "$TOPO_SV_NS" -6 addr add "$SV6/64" dev eth0 nodad
	local ns
	for ns in "$TOPO_CL_NS" "$TOPO_SV_NS"; do
		ip -n "$ns" link set lo up
		ip -n "$ns" link set eth0 up
	done
	ip -n "$TOPO_CL_NS" -6 route add default via "$R_CL6" || return 1
	ip -n "$TOPO_SV_NS" -6 route add default via "$R_SV6" || return 1

	sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 || return 1
	# Liberal TCP window tracking would hide sequence-adjustment bugs.
	sysctl -qw net.netfilter.nf_conntrack_tcp_be_liberal=0 2>/dev/null

	local t
	for t in "$IPT" "$IP6T"; do
		"$t" -t raw -F PREROUTING
		"$t" -t nat -F PREROUTING
		"$t" -t nat -F POSTROUTING
	done
	topo_firewall ftp || return 1
	topo_mode plain || return 1
	topo_wait_links
}

# The control ports of the current profile, "PROTO:PORT ...": what FORWARD
# admits NEW (topo_firewall) and what topo_ct_add hands to the helper.
TOPO_CTL_PORTS=
# topo_firewall ftp|sip: FORWARD policy DROP; ESTABLISHED,RELATED pass; NEW
# passes only to the control port(s):
#   ftp  tcp/21, from either side
#   sip  udp/5060 and tcp/5060, from the client side only (-i r-cl): a call
#        to the client (an INVITE to a registered phone) passes only as
#        RELATED, i.e. if the helper expected it
#   tnsrpc  tcp/1521 (Oracle TNS) and tcp/111, udp/111 (SunRPC portmapper/
#        rpcbind), from the client side only: the connection a TNS redirect
#        or a portmapper answer announces passes only as RELATED (the
#        helpers differ by port: topo_ct_add_port)
topo_firewall() {
	local profile=$1 side=() t p
	case $profile in
	ftp) TOPO_CTL_PORTS="tcp:21" ;;
	sip) TOPO_CTL_PORTS="udp:5060 tcp:5060"; side=(-i r-cl) ;;
	tnsrpc) TOPO_CTL_PORTS="tcp:1521 tcp:111 udp:111"; side=(-i r-cl) ;;
	toy) TOPO_CTL_PORTS="tcp:7000"; side=(-i r-cl) ;;
	*) topo_err "unknown firewall profile $profile"; return 1 ;;
	esac
	for t in "$IPT" "$IP6T"; do
		"$t" -F FORWARD && "$t" -P FORWARD DROP &&
		"$t" -A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT ||
			topo_err "$t FORWARD rules failed" || return 1
		for p in $TOPO_CTL_PORTS; do
			"$t" -A FORWARD "${side[@]}" -p "${p%%:*}" --dport "${p#*:}" \
				-m conntrack --ctstate NEW -j ACCEPT ||
				topo_err "$t FORWARD rule for $p failed" || return 1
		done
	done
}

# veth and IPv6 need a moment after "up"; ping both families both ways.
topo_wait_links() {
	local _
	for _ in $(seq 1 50); do
		if in_client ping -c1 -W1 -q "$R_CL4" >/dev/null 2>&1 &&
		   in_server ping -c1 -W1 -q "$R_SV4" >/dev/null 2>&1 &&
		   in_client ping -6 -c1 -W1 -q "$R_CL6" >/dev/null 2>&1 &&
		   in_server ping -6 -c1 -W1 -q "$R_SV6" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.2
	done
	topo_err "links did not come up"
}

# Variants (IPv6 is plain routing except in masq6):
#   plain  client and server route to each other through the router.
#   masq   the client's net is private: MASQUERADE out of r-sv, and the
#          server has no route back to 10.0.1.0/24, so an unrewritten
#          PORT/EPRT address is refused (foreign address) or unreachable.
#   dnat   the server is private: the client dials the router ($R_CL4) on
#          the profile's control port(s) (tcp/21 for ftp; udp/5060 and
#          tcp/5060 for sip), DNAT to $SV4; the client has no route to
#          10.0.2.0/24, so an unrewritten 227 reply (or SDP) is unreachable.
#   masq6  IPv4 routed; the client's IPv6 net is private: MASQUERADE out of
#          r-sv, and the server has no IPv6 route back to fd00:1::/64, so
#          an unrewritten EPRT |2| address is refused or unreachable.
# SV4_DIAL is set to the address the client must dial.
topo_mode() {
	local mode=$1 p
	"$IPT" -t nat -F PREROUTING
	"$IPT" -t nat -F POSTROUTING
	ip -n "$TOPO_CL_NS" -4 route del default 2>/dev/null
	ip -n "$TOPO_SV_NS" -4 route del default 2>/dev/null
	# IPv6 is routed in every mode but masq6
	"$IP6T" -t nat -F POSTROUTING
	ip -n "$TOPO_SV_NS" -6 route replace default via "$R_SV6" || return 1
	case $mode in
	plain)
		ip -n "$TOPO_CL_NS" route add default via "$R_CL4" || return 1
		ip -n "$TOPO_SV_NS" route add default via "$R_SV4" || return 1
		SV4_DIAL=$SV4 ;;
	masq)
		ip -n "$TOPO_CL_NS" route add default via "$R_CL4" || return 1
		"$IPT" -t nat -A POSTROUTING -o r-sv -s 10.0.1.0/24 -j MASQUERADE || return 1
		SV4_DIAL=$SV4 ;;
	dnat)
		ip -n "$TOPO_SV_NS" route add default via "$R_SV4" || return 1
		for p in $TOPO_CTL_PORTS; do
			"$IPT" -t nat -A PREROUTING -i r-cl -d "$R_CL4" -p "${p%%:*}" \
				--dport "${p#*:}" -j DNAT --to-destination "$SV4" || return 1
		done
		SV4_DIAL=$R_CL4 ;;
	masq6)
		# IPv4 routed; IPv6: the client's net is private (MASQUERADE
		# out of r-sv, the server has no route back to fd00:1::/64)
		ip -n "$TOPO_CL_NS" route add default via "$R_CL4" || return 1
		ip -n "$TOPO_SV_NS" route add default via "$R_SV4" || return 1
		"$IP6T" -t nat -A POSTROUTING -o r-sv -s fd00:1::/64 -j MASQUERADE || return 1
		ip -n "$TOPO_SV_NS" -6 route del default || return 1
		SV4_DIAL=$SV4 ;;
	*) topo_err "unknown mode $mode"; return 1 ;;
	esac
	TOPO_MODE=$mode
	# NAT bindings are made on a connection's first packet: start clean.
	topo_flush_conntrack
}

# topo_replay_nat 4|6: the cthelper-replay options that emulate the current
# mode's NAT for a connection of that family as the client dials it:
# masq = --snat to the router's server-side address, dnat = --dnat to the
# server, masq6 = --snat for IPv6 only; nothing when that family is
# routed.  Printed on stdout (tests/e2e/inside.sh writes it to nat.txt).
topo_replay_nat() {
	case $TOPO_MODE/$1 in
	masq/4) echo "--snat $R_SV4" ;;
	dnat/4) echo "--dnat $SV4" ;;
	masq6/6) echo "--snat $R_SV6" ;;
	esac
	return 0
}

# The helper must already be registered (user space) when this runs, or the
# kernel autoloads its own helper module for the name (nf_conntrack_ftp).
#
# With ZONE: the CT target does nothing to a packet that already carries a
# conntrack or template (the first CT rule that matches wins), so the helper
# rule goes first and carries the zone itself; the two catch-all rules then
# give every other packet entering the router (replies, data connections,
# pings) the same zone, so both directions of every connection meet.
topo_ct_add() {
	local name=$1 zone=${2:-} t p z=()
	[ -z "$zone" ] || z=(--zone "$zone")
	for t in "$IPT" "$IP6T"; do
		for p in $TOPO_CTL_PORTS; do
			"$t" -t raw -A PREROUTING -p "${p%%:*}" --dport "${p#*:}" \
				-j CT --helper "$name" "${z[@]}" ||
				topo_err "$t: CT --helper $name ${z[*]} rule for $p failed" || return 1
		done
		[ -n "$zone" ] || continue
		"$t" -t raw -A PREROUTING -i r-cl -j CT --zone "$zone" &&
		"$t" -t raw -A PREROUTING -i r-sv -j CT --zone "$zone" ||
			topo_err "$t: CT --zone $zone rules failed" || return 1
	done
}

# topo_ct_add_port NAME PROTO:PORT [FAMILIES]: "CT --helper NAME" for one
# port, IPv4 and/or IPv6 (FAMILIES 4, 6 or 46, default 46): a user-space
# helper registered for one family only (conntrackd's inet ones) cannot be
# named by an ip6tables rule.
topo_ct_add_port() {
	local name=$1 p=$2 fams=${3:-46} t
	for t in 4 6; do
		[[ $fams == *$t* ]] || continue
		[ $t = 4 ] && t=$IPT || t=$IP6T
		"$t" -t raw -A PREROUTING -p "${p%%:*}" --dport "${p#*:}" -j CT --helper "$name" ||
			topo_err "$t: CT --helper $name rule for $p failed" || return 1
	done
}

# Must run before the helper is deleted: deleting a helper while a rule
# names it leaks the rule's helper reference for good (kernel bug).
topo_ct_del() {
	local t
	for t in "$IPT" "$IP6T"; do
		"$t" -t raw -F PREROUTING
	done
}

topo_flush_conntrack() {
	conntrack -F >/dev/null 2>&1
	conntrack -F expect >/dev/null 2>&1
	return 0
}

topo_teardown() {
	topo_ct_del
	local t
	for t in "$IPT" "$IP6T"; do
		"$t" -t nat -F PREROUTING 2>/dev/null
		"$t" -t nat -F POSTROUTING 2>/dev/null
		"$t" -F FORWARD 2>/dev/null
		"$t" -P FORWARD ACCEPT 2>/dev/null
	done
	ip netns del "$TOPO_CL_NS" 2>/dev/null
	ip netns del "$TOPO_SV_NS" 2>/dev/null
	ip link del r-cl 2>/dev/null
	ip link del r-sv 2>/dev/null
	topo_flush_conntrack
}
