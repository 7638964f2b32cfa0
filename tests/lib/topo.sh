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
#   topo_firewall ftp|sip|tnsrpc|toy|tftp|rtsp|more  which NEW connections FORWARD admits and
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
#   topo_ct_del                 remove those rules and raw OUTPUT's (before
#                               deleting a helper!)
#   topo_input_stateful / topo_input_open
#                               the router's INPUT DROP but for replies and
#                               RELATED, a multicast route out of r-cl / undone
#   topo_flush_conntrack        forget connections and expectations
#   topo_assert_no_kernel_helper NAME   fail loudly if nf_conntrack_NAME
#                               (or nf_nat_NAME) is loaded
#   topo_assert_no_kernel_ftp   the same for ftp
#   in_client CMD... / in_server CMD...
#   topo_teardown
#   topo_ha_* (tests/ha)        a firewall pair instead of the one router:
#                               see "HA pair" at the end of this file
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
# kmod/'s cthelperd_nfnl, when loaded (tests/kmod/use-ours.sh, tests/deb's
# DKMS case), serves the cthelper subsystem: the in-tree module cannot load
# beside it, and must not be asked for.
topo_modules() {
	local mods=$TOPO_MODULES
	[ ! -d /sys/module/cthelperd_nfnl ] || mods=${mods/nfnetlink_cthelper/}
	# shellcheck disable=SC2086
	modprobe -a $mods || topo_err "modprobe -a $mods failed"
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
#   tftp udp/69, from the client side only: the server's answer, which
#        comes from another port of its own, passes only as RELATED
#   rtsp tcp/554, from the client side only: the media (RTP and RTCP over
#        UDP, either way) passes only as RELATED
#   more tcp/6667 (IRC), udp/10080 (Amanda), tcp/6566 (SANE), tcp/1723
#        (PPTP), from the client side only: a DCC connection, Amanda's
#        data connections, SANE's data connection and PPTP's GRE pass
#        only as RELATED (tests/more; its helpers differ by port:
#        topo_ct_add_port)
topo_firewall() {
	local profile=$1 side=() t p
	case $profile in
	ftp) TOPO_CTL_PORTS="tcp:21" ;;
	sip) TOPO_CTL_PORTS="udp:5060 tcp:5060"; side=(-i r-cl) ;;
	tnsrpc) TOPO_CTL_PORTS="tcp:1521 tcp:111 udp:111"; side=(-i r-cl) ;;
	toy) TOPO_CTL_PORTS="tcp:7000"; side=(-i r-cl) ;;
	tftp) TOPO_CTL_PORTS="udp:69"; side=(-i r-cl) ;;
	rtsp) TOPO_CTL_PORTS="tcp:554"; side=(-i r-cl) ;;
	more) TOPO_CTL_PORTS="tcp:6667 udp:10080 tcp:6566 tcp:1723"; side=(-i r-cl) ;;
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

# topo_input_stateful: the router as a host that asks the LAN itself (the
# local cases of tests/more: it sends an M-SEARCH, an mDNS or SLP query, a
# DHCPv6 Solicit, a NetBIOS name query): INPUT policy DROP but for lo,
# ESTABLISHED,RELATED and ICMP (IPv6 neighbour discovery), so a unicast
# answer reaches it only as RELATED.  Multicast and the limited broadcast
# leave by r-cl (the client's LAN): routes for 224.0.0.0/4 and
# 255.255.255.255 (the VM has no default route for them to follow).  The
# router's address on r-cl gets its broadcast address (brd +: "ip addr
# add" sets none, and "ip addr replace" does not change it on an existing
# address, hence delete and add), which nf_conntrack_broadcast looks for
# to find the subnet a name query went to (without it the kernel expects
# nothing).
# topo_input_open undoes the rules and routes.
topo_input_stateful() {
	local t icmp
	for t in "$IPT" "$IP6T"; do
		icmp=icmp
		[ "$t" = "$IP6T" ] && icmp=ipv6-icmp
		"$t" -F INPUT && "$t" -A INPUT -i lo -j ACCEPT &&
		"$t" -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT &&
		"$t" -A INPUT -p "$icmp" -j ACCEPT && "$t" -P INPUT DROP ||
			topo_err "$t INPUT rules failed" || return 1
	done
	ip addr del "$R_CL4/24" dev r-cl && ip addr add "$R_CL4/24" brd + dev r-cl &&
	ip route replace 224.0.0.0/4 dev r-cl &&
	ip route replace 255.255.255.255/32 dev r-cl || topo_err "multicast/broadcast routes failed"
}
topo_input_open() {
	local t
	for t in "$IPT" "$IP6T"; do
		"$t" -P INPUT ACCEPT
		"$t" -F INPUT
	done
	ip route del 224.0.0.0/4 dev r-cl 2>/dev/null
	ip route del 255.255.255.255/32 dev r-cl 2>/dev/null
	return 0
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
		"$t" -t raw -F OUTPUT	# tests/more's local cases
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

# ------------------------------------------------------------ HA pair (issue 18)
#
# tests/ha: two routers as network namespaces, both on both LANs, a
# dedicated sync link between them; the VM's root namespace only holds the
# two bridges (the LANs; no addresses, no br_netfilter).
#
#   client ns ─┬─ bridge ha-cl ─┬─ eth-cl  router A ns (cth-ra)  eth-sv ─┬─ bridge ha-sv ─┬─ server ns
#   10.0.1.2   │  VIP 10.0.1.1  └─ eth-cl  router B ns (cth-rb)  eth-sv ─┘  VIP 10.0.2.1   │  10.0.2.2
#              │  (the client's  A .11 / B .12        sync: 192.168.100.1 ↔ .2   SNAT VIP   │
#              │   gateway)                                   10.0.2.100 (snat variant)
#
# The virtual addresses (10.0.1.1, 10.0.2.1, 10.0.2.100) are on the active
# router; the client routes via 10.0.1.1, the server via 10.0.2.1.  Both
# routers: ip_forward, nf_conntrack_tcp_loose=0 (a mid-stream TCP packet
# without a conntrack entry is not picked up), be_liberal=0, FORWARD
# policy DROP but ESTABLISHED,RELATED, and NEW only for SYNs to tcp/21 and
# UDP/TCP 5060 from the client side.  The interface names are the same in
# both routers, so one set of rules fits both.
#
#   topo_ha_setup               namespaces, bridges, links, addresses,
#                               sysctls, firewall in both routers; A active
#   topo_ha_mode plain|snat     snat: POSTROUTING SNAT of 10.0.1.0/24 to
#                               $HA_SNAT_VIP out of eth-sv (both routers)
#   in_ra CMD... / in_rb CMD... / in_router A|B CMD...
#   topo_ha_activate A|B        the virtual addresses to that router (and
#                               its LAN links up), the hosts' neighbour
#                               caches flushed (instead of gratuitous ARP)
#   topo_ha_fail A|B            that router's LAN links down (the failure)
#   topo_ha_ct_add NAME         CT --helper NAME rules (ports of the
#                               firewall) in both routers
#   topo_ha_ct_del              those rules removed in both routers
#   topo_ha_flush               conntrack and expectations flushed in both
#   topo_ha_teardown
TOPO_RA_NS=cth-ra
TOPO_RB_NS=cth-rb
HA_CL_VIP=10.0.1.1 HA_SV_VIP=10.0.2.1 HA_SNAT_VIP=10.0.2.100
HA_A_CL=10.0.1.11 HA_A_SV=10.0.2.11 HA_B_CL=10.0.1.12 HA_B_SV=10.0.2.12
HA_A_SYNC=192.168.100.1 HA_B_SYNC=192.168.100.2
HA_ACTIVE=

ha_ns() { [ "$1" = A ] && echo "$TOPO_RA_NS" || echo "$TOPO_RB_NS"; }
in_ra() { nsenter --net="/run/netns/$TOPO_RA_NS" "$@"; }
in_rb() { nsenter --net="/run/netns/$TOPO_RB_NS" "$@"; }
in_router() { local r=$1; shift; nsenter --net="/run/netns/$(ha_ns "$r")" "$@"; }

topo_ha_setup() {
	local r ns t sync
	topo_modules || return 1
	modprobe -a bridge || topo_err "modprobe bridge failed" || return 1
	topo_ha_teardown 2>/dev/null
	for ns in "$TOPO_CL_NS" "$TOPO_SV_NS" "$TOPO_RA_NS" "$TOPO_RB_NS"; do
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up
	done
	for t in ha-cl ha-sv; do
		ip link add "$t" type bridge || return 1
		# no STP, no forward delay: ports forward at once
		ip link set "$t" type bridge stp_state 0 forward_delay 0 2>/dev/null
		ip link set "$t" up
	done
	# hosts
	ip link add hcl type veth peer name eth0 netns "$TOPO_CL_NS" || return 1
	ip link add hsv type veth peer name eth0 netns "$TOPO_SV_NS" || return 1
	ip link set hcl master ha-cl up && ip link set hsv master ha-sv up || return 1
	ip -n "$TOPO_CL_NS" addr add "$CL4/24" dev eth0
	ip -n "$TOPO_SV_NS" addr add "$SV4/24" dev eth0
	ip -n "$TOPO_CL_NS" link set eth0 up
	ip -n "$TOPO_SV_NS" link set eth0 up
	ip -n "$TOPO_CL_NS" route add default via "$HA_CL_VIP" || return 1
	ip -n "$TOPO_SV_NS" route add default via "$HA_SV_VIP" || return 1
	# routers
	for r in A B; do
		ns=$(ha_ns "$r")
		ip link add "${r,,}cl" type veth peer name eth-cl netns "$ns" || return 1
		ip link add "${r,,}sv" type veth peer name eth-sv netns "$ns" || return 1
		ip link set "${r,,}cl" master ha-cl up && ip link set "${r,,}sv" master ha-sv up || return 1
		if [ "$r" = A ]; then
			ip -n "$ns" addr add "$HA_A_CL/24" dev eth-cl
			ip -n "$ns" addr add "$HA_A_SV/24" dev eth-sv
		else
			ip -n "$ns" addr add "$HA_B_CL/24" dev eth-cl
			ip -n "$ns" addr add "$HA_B_SV/24" dev eth-sv
		fi
		ip -n "$ns" link set eth-cl up
		ip -n "$ns" link set eth-sv up
		in_router "$r" sysctl -qw net.ipv4.ip_forward=1 \
			net.netfilter.nf_conntrack_tcp_loose=0 \
			net.netfilter.nf_conntrack_tcp_be_liberal=0 ||
			topo_err "sysctls in router $r failed" || return 1
		topo_ha_firewall "$r" || return 1
	done
	# the dedicated sync link
	ip -n "$TOPO_RA_NS" link add sync type veth peer name sync netns "$TOPO_RB_NS" || return 1
	ip -n "$TOPO_RA_NS" addr add "$HA_A_SYNC/24" dev sync
	ip -n "$TOPO_RB_NS" addr add "$HA_B_SYNC/24" dev sync
	ip -n "$TOPO_RA_NS" link set sync up
	ip -n "$TOPO_RB_NS" link set sync up
	topo_ha_activate A || return 1
	topo_ha_wait_links
}

# topo_ha_firewall A|B: FORWARD DROP; ESTABLISHED,RELATED; NEW only for a
# SYN to tcp/21 and for 5060 (UDP, or a TCP SYN) from the client side.
topo_ha_firewall() {
	local r=$1
	in_router "$r" "$IPT" -P FORWARD DROP &&
	in_router "$r" "$IPT" -A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT &&
	in_router "$r" "$IPT" -A FORWARD -p tcp --syn --dport 21 -m conntrack --ctstate NEW -j ACCEPT &&
	in_router "$r" "$IPT" -A FORWARD -i eth-cl -p udp --dport 5060 -m conntrack --ctstate NEW -j ACCEPT &&
	in_router "$r" "$IPT" -A FORWARD -i eth-cl -p tcp --syn --dport 5060 -m conntrack --ctstate NEW -j ACCEPT ||
		topo_err "router $r: FORWARD rules failed"
}

topo_ha_mode() {
	local r
	for r in A B; do
		in_router "$r" "$IPT" -t nat -F POSTROUTING
		[ "$1" = snat ] || continue
		in_router "$r" "$IPT" -t nat -A POSTROUTING -o eth-sv -s 10.0.1.0/24 \
			-j SNAT --to-source "$HA_SNAT_VIP" || topo_err "router $r: SNAT rule failed" || return 1
	done
	TOPO_MODE=$1
}

topo_ha_activate() {
	local r=$1 o ns a
	[ "$r" = A ] && o=B || o=A
	ns=$(ha_ns "$o")
	for a in "$HA_CL_VIP/24 dev eth-cl" "$HA_SV_VIP/24 dev eth-sv" "$HA_SNAT_VIP/24 dev eth-sv"; do
		# shellcheck disable=SC2086  # "ADDR dev IF"
		ip -n "$ns" addr del $a 2>/dev/null
	done
	ns=$(ha_ns "$r")
	ip -n "$ns" link set eth-cl up && ip -n "$ns" link set eth-sv up || return 1
	ip -n "$ns" addr replace "$HA_CL_VIP/24" dev eth-cl &&
	ip -n "$ns" addr replace "$HA_SV_VIP/24" dev eth-sv &&
	ip -n "$ns" addr replace "$HA_SNAT_VIP/24" dev eth-sv ||
		topo_err "router $r: virtual addresses failed" || return 1
	ip -n "$TOPO_CL_NS" neigh flush all
	ip -n "$TOPO_SV_NS" neigh flush all
	HA_ACTIVE=$r
}

topo_ha_fail() {
	local ns
	ns=$(ha_ns "$1")
	ip -n "$ns" link set eth-cl down
	ip -n "$ns" link set eth-sv down
}

# Both LANs reachable through the active router: ping the virtual
# addresses from the hosts and the server from the client.
topo_ha_wait_links() {
	local _
	for _ in $(seq 1 50); do
		if in_client ping -c1 -W1 -q "$HA_CL_VIP" >/dev/null 2>&1 &&
		   in_server ping -c1 -W1 -q "$HA_SV_VIP" >/dev/null 2>&1 &&
		   in_ra ping -c1 -W1 -q "$HA_B_SYNC" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.2
	done
	topo_err "HA links did not come up"
}

topo_ha_ct_add() {
	local name=$1 r p
	for r in A B; do
		for p in tcp:21 udp:5060 tcp:5060; do
			[ "$name" = ftp ] && [ "$p" != tcp:21 ] && continue
			[ "$name" = sip ] && [ "$p" = tcp:21 ] && continue
			in_router "$r" "$IPT" -t raw -A PREROUTING -p "${p%%:*}" --dport "${p#*:}" \
				-j CT --helper "$name" ||
				topo_err "router $r: CT --helper $name rule for $p failed" || return 1
		done
	done
}

topo_ha_ct_del() {
	in_ra "$IPT" -t raw -F PREROUTING 2>/dev/null
	in_rb "$IPT" -t raw -F PREROUTING 2>/dev/null
	return 0
}

topo_ha_flush() {
	local r
	for r in A B; do
		in_router "$r" conntrack -F >/dev/null 2>&1
		in_router "$r" conntrack -F expect >/dev/null 2>&1
	done
	return 0
}

topo_ha_teardown() {
	local ns
	topo_ha_ct_del
	topo_ha_flush
	for ns in "$TOPO_CL_NS" "$TOPO_SV_NS" "$TOPO_RA_NS" "$TOPO_RB_NS"; do
		ip netns del "$ns" 2>/dev/null
	done
	for ns in hcl hsv acl asv bcl bsv ha-cl ha-sv; do
		ip link del "$ns" 2>/dev/null
	done
	return 0
}
