#!/bin/bash
# Kernel facts for issue 31, measured inside the test VM:
#   tests/vm/run.sh --timeout 300 tests/vm/measure/issue31.sh prefix|mcast|gre
# Output: commands ("+ ...") and what they printed; read by
# docs/research/issue31-kernel.md.
# $NLX, $CTHNL, $IPT and friends are split on purpose.
# shellcheck disable=SC2086,SC1091
set -u
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib/topo.sh
NLX="python3 tests/vm/measure/nlx.py"
run() {
	echo "+ $*"
	local c=("$@")
	case $1 in
	in_client) c=(nsenter --net=/run/netns/cth-client "${@:2}") ;;
	in_server) c=(nsenter --net=/run/netns/cth-server "${@:2}") ;;
	esac
	timeout 30 "${c[@]}" 2>&1; echo "  [rc=$?]"
}
CTHNL="python3 tests/kmod/cthnl.py"
step() { echo; echo "=== $*"; echo "$*" >>"${VM_PROGRESS:-/dev/null}"; }
fw_counts() { echo "+ $IPT -L $1 -v -n -x"; $IPT -L "$1" -v -n -x | sed 's/^/  /'; }
fw6_counts() { echo "+ $IP6T -L $1 -v -n -x"; $IP6T -L "$1" -v -n -x | sed 's/^/  /'; }
BGPIDS=()
bgrun() { "$@" >"/tmp/bg.$$.$BGN" 2>&1 & BGPIDS+=($!); BGN=$((BGN + 1)); }
BGN=0
bgout() { local i; [ ${#BGPIDS[@]} -eq 0 ] || wait "${BGPIDS[@]}"; BGPIDS=(); for ((i = 0; i < BGN; i++)); do sed 's/^/  bg| /' "/tmp/bg.$$.$i"; rm -f "/tmp/bg.$$.$i"; done; BGN=0; }

echo "kernel: $(uname -r) $(uname -v)"
topo_setup || exit 1
modprobe -a nfnetlink_cthelper nf_conntrack_netlink nfnetlink_queue
# One queue listener for the whole run (queue 0, every helper's queue):
# it accepts every packet and logs it.  Without a listener an enabled
# user-space helper's connections are never confirmed (measured, see doc).
$NLX nfq 0 280 >/tmp/nfq.log 2>&1 &
NFQ=$!
nfqlog() { echo "+ (queue 0 listener log)"; sed 's/^/  nfq| /' /tmp/nfq.log; : >/tmp/nfq.log; }
sleep 2

part_prefix() {
	step "prefix: firewall (FORWARD DROP; a RELATED-only counter first), helper t31 on udp/7000"
	for t in "$IPT" "$IP6T"; do
		$t -F FORWARD
		$t -A FORWARD -m conntrack --ctstate RELATED -j ACCEPT
		$t -A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT
		$t -A FORWARD -i r-cl -p udp --dport 7000 -m conntrack --ctstate NEW -j ACCEPT
	done
	run nfct add helper t31 inet udp
	echo "(nfct only adds the helpers conntrackd ships; t31 over raw nfnetlink_cthelper instead)"
	run $CTHNL new t31 2 17 --queue 0 --status 1
	run $CTHNL new t31 10 17 --queue 0 --status 1
	run nfct list helper
	run $IPT -t raw -A PREROUTING -p udp --dport 7000 -j CT --helper t31
	run $IP6T -t raw -A PREROUTING -p udp --dport 7000 -j CT --helper t31
	# more hosts on the server's subnet, and one outside it
	ip -n cth-server addr add 10.0.2.77/24 dev eth0
	ip -n cth-server addr add 10.0.2.200/24 dev eth0
	ip -n cth-server addr add 10.0.3.5/32 dev eth0
	ip route add 10.0.3.0/24 via 10.0.2.2
	ip -n cth-server -6 addr add fd00:2::77/64 dev eth0 nodad
	ip -n cth-server -6 addr add fd00:2::200/64 dev eth0 nodad
	ip -n cth-server -6 addr add fd00:3::5/128 dev eth0 nodad
	ip -6 route add fd00:3::/64 via fd00:2::2

	step "prefix v4: master udp 10.0.1.2:5000 -> 10.0.2.2:7000"
	run in_client $NLX udp-send 10.0.1.2 5000 10.0.2.2 7000 req
	run conntrack -L -p udp
	nfqlog
	step "prefix v4: baseline, no expectation: answer from 10.0.2.77"
	bgrun in_client $NLX udp-recv 10.0.1.2 5000 4
	sleep 1.5; run in_server $NLX udp-send 10.0.2.77 9999 10.0.1.2 5000 baseline77; bgout
	step "prefix v4: conntrack -I expect, src 10.0.2.0 mask 255.255.255.0"
	run conntrack -I expect -p udp --orig-src 10.0.1.2 --orig-dst 10.0.2.2 \
		--orig-port-src 5000 --orig-port-dst 7000 \
		--tuple-src 10.0.2.0 --tuple-dst 10.0.1.2 --tuple-port-src 0 --tuple-port-dst 5000 \
		--mask-src 255.255.255.0 --mask-dst 255.255.255.255 --mask-port-src 0 --mask-port-dst 65535 \
		-t 60
	run conntrack -L expect
	run conntrack -L expect -o extended
	step "prefix v4: answers from 10.0.2.77, then 10.0.2.200, then 10.0.3.5 (outside)"
	bgrun in_client $NLX udp-recv 10.0.1.2 5000 7
	sleep 1.5
	run in_server $NLX udp-send 10.0.2.77 9999 10.0.1.2 5000 from77
	run conntrack -L expect
	run in_server $NLX udp-send 10.0.2.200 9999 10.0.1.2 5000 from200
	run in_server $NLX udp-send 10.0.3.5 9999 10.0.1.2 5000 from3.5
	bgout
	run conntrack -L -p udp
	fw_counts FORWARD
	step "prefix v4: same with NF_CT_EXPECT_PERMANENT (ctnetlink CTA_EXPECT_FLAGS 1)"
	$IPT -Z FORWARD
	run $NLX exp 4 17,10.0.1.2,10.0.2.2,5000,7000 17,10.0.2.0,10.0.1.2,0,5001 \
		255.255.255.0,255.255.255.255,0,65535 --flags 1
	run conntrack -L expect
	bgrun in_client $NLX udp-recv 10.0.1.2 5001 7
	sleep 1.5
	run in_server $NLX udp-send 10.0.2.77 9999 10.0.1.2 5001 perm77
	run in_server $NLX udp-send 10.0.2.200 9999 10.0.1.2 5001 perm200
	run in_server $NLX udp-send 10.0.3.5 9999 10.0.1.2 5001 perm3.5
	bgout
	run conntrack -L expect
	fw_counts FORWARD

	step "prefix v6: master udp [fd00:1::2]:5000 -> [fd00:2::2]:7000, expectation src fd00:2::/64"
	run in_client $NLX udp-send fd00:1::2 5000 fd00:2::2 7000 req6
	run conntrack -I expect -p udp --orig-src fd00:1::2 --orig-dst fd00:2::2 \
		--orig-port-src 5000 --orig-port-dst 7000 \
		--tuple-src fd00:2:: --tuple-dst fd00:1::2 --tuple-port-src 0 --tuple-port-dst 5000 \
		--mask-src ffff:ffff:ffff:ffff:: --mask-dst ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff \
		--mask-port-src 0 --mask-port-dst 65535 -t 60
	run conntrack -L expect -f ipv6
	bgrun in_client $NLX udp-recv fd00:1::2 5000 7
	sleep 1.5
	run in_server $NLX udp-send fd00:2::77 9999 fd00:1::2 5000 from77v6
	run in_server $NLX udp-send fd00:3::5 9999 fd00:1::2 5000 from3::5
	bgout
	run conntrack -L -f ipv6 -p udp
	fw6_counts FORWARD
	step "prefix v6: a second (ctnetlink, src fd00:2::/64) for fd00:2::200 and fd00:3::5"
	run $NLX exp 6 17,fd00:1::2,fd00:2::2,5000,7000 17,fd00:2::,fd00:1::2,0,5002 \
		ffff:ffff:ffff:ffff::,ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,0,65535
	bgrun in_client $NLX udp-recv fd00:1::2 5002 6
	sleep 1.5
	run in_server $NLX udp-send fd00:3::5 9999 fd00:1::2 5002 from3::5
	run in_server $NLX udp-send fd00:2::200 9999 fd00:1::2 5002 from200v6
	bgout
	fw6_counts FORWARD
	topo_ct_del
	run $CTHNL del t31 --tuple 2 17
	run $CTHNL del t31 --tuple 10 17
}

part_mcast() {
	step "mcast: INPUT stateful (lo, ESTABLISHED, RELATED counted, udp/1900 NEW from r-cl, else DROP); helper ssdp on raw OUTPUT+PREROUTING"
	$IPT -F INPUT
	$IPT -A INPUT -i lo -j ACCEPT
	$IPT -A INPUT -m conntrack --ctstate RELATED -j ACCEPT
	$IPT -A INPUT -m conntrack --ctstate ESTABLISHED -j ACCEPT
	$IPT -A INPUT -p icmp -j ACCEPT
	$IPT -A INPUT -i r-cl -p udp -d 239.255.255.250 --dport 1900 -j ACCEPT
	$IPT -P INPUT DROP
	run nfct add helper ssdp inet udp
	echo "(nfct adds it disabled and an update is refused: deleted and created enabled over nfnetlink_cthelper, as conntrackd would have it)"
	run nfct list helper
	run nfct delete helper ssdp inet udp
	run $CTHNL new ssdp 2 17 --queue 0 --status 1
	run nfct list helper
	$IPT -t raw -A OUTPUT -p udp -d 239.255.255.250 --dport 1900 -j CT --helper ssdp
	$IPT -t raw -A PREROUTING -p udp -d 239.255.255.250 --dport 1900 -j CT --helper ssdp
	ip route add 239.0.0.0/8 dev r-cl
	ip -n cth-client addr add 10.0.1.77/24 dev eth0
	ip -n cth-client route add 239.0.0.0/8 dev eth0
	run ip route get 239.255.255.250
	step "mcast OUTPUT: router 10.0.1.1:40000 -> 239.255.255.250:1900, with a queue listener on queue 0"
	bgrun in_client $NLX udp-recv 0.0.0.0 1900 8 239.255.255.250
	sleep 2.5
	run $NLX udp-send 10.0.1.1 40000 239.255.255.250 1900 M-SEARCH
	sleep 1
	run conntrack -L -p udp
	nfqlog
	step "mcast OUTPUT: baseline unicast answer 10.0.1.2:1900 -> 10.0.1.1:40000, no expectation"
	bgrun $NLX udp-recv 10.0.1.1 40000 4
	sleep 1.5
	run in_client $NLX udp-send 10.0.1.2 1900 10.0.1.1 40000 baseline
	bgout
	fw_counts INPUT
	step "mcast OUTPUT: expectation src 10.0.1.0/24 any port -> 10.0.1.1:40000 (conntrack -I expect)"
	$IPT -Z INPUT
	run conntrack -I expect -p udp --orig-src 10.0.1.1 --orig-dst 239.255.255.250 \
		--orig-port-src 40000 --orig-port-dst 1900 \
		--tuple-src 10.0.1.0 --tuple-dst 10.0.1.1 --tuple-port-src 0 --tuple-port-dst 40000 \
		--mask-src 255.255.255.0 --mask-dst 255.255.255.255 --mask-port-src 0 --mask-port-dst 65535 \
		-t 60
	run conntrack -L expect
	bgrun $NLX udp-recv 10.0.1.1 40000 6
	sleep 1.5
	run in_client $NLX udp-send 10.0.1.2 1900 10.0.1.1 40000 answer-from-.2
	run in_client $NLX udp-send 10.0.1.77 1900 10.0.1.1 40000 answer-from-.77
	bgout
	run conntrack -L -p udp
	fw_counts INPUT
	step "mcast OUTPUT: the same with PERMANENT (ctnetlink flags 1): two hosts answer"
	$IPT -Z INPUT
	run $NLX exp 4 17,10.0.1.1,239.255.255.250,40000,1900 17,10.0.1.0,10.0.1.1,0,40000 \
		255.255.255.0,255.255.255.255,0,65535 --flags 1
	bgrun $NLX udp-recv 10.0.1.1 40000 6
	sleep 1.5
	run in_client $NLX udp-send 10.0.1.2 1901 10.0.1.1 40000 perm-from-.2
	run in_client $NLX udp-send 10.0.1.77 1901 10.0.1.1 40000 perm-from-.77
	bgout
	fw_counts INPUT
	run conntrack -F expect

	step "mcast PREROUTING: client 10.0.1.2:41000 -> 239.255.255.250:1900, router joined the group"
	bgrun $NLX udp-recv 0.0.0.0 1900 8 239.255.255.250
	sleep 2.5
	run in_client $NLX udp-send 10.0.1.2 41000 239.255.255.250 1900 M-SEARCH-client
	sleep 1
	bgout
	nfqlog
	run conntrack -L -p udp -d 239.255.255.250
	run $NLX exp 4 17,10.0.1.2,239.255.255.250,41000,1900 17,10.0.1.0,10.0.1.2,0,41000 \
		255.255.255.0,255.255.255.255,0,65535
	run conntrack -L expect
	step "mcast forward: client -> group with the router NOT in the group (no multicast routing)"
	run conntrack -F
	run in_client $NLX udp-send 10.0.1.2 42000 239.255.255.250 1900 M-SEARCH-fwd
	run conntrack -L -p udp -d 239.255.255.250
	run conntrack -L unconfirmed
	run cat /proc/sys/net/ipv4/conf/r-cl/mc_forwarding
	$IPT -P INPUT ACCEPT
	$IPT -F INPUT
	$IPT -t raw -F OUTPUT
	topo_ct_del
	run nfct delete helper ssdp inet udp
}

part_gre() {
	step "gre: FORWARD admits NEW tcp/1723 and tcp/21 from r-cl; user-space helper upptp on tcp/1723"
	$IPT -F FORWARD
	$IPT -A FORWARD -m conntrack --ctstate RELATED -j ACCEPT
	$IPT -A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT
	$IPT -A FORWARD -i r-cl -p tcp -m multiport --dports 21,1723 -m conntrack --ctstate NEW -j ACCEPT
	run grep -E "^nf_conntrack_pptp|^nf_nat_pptp|^nf_conntrack_sip|^nf_nat " /proc/modules
	step "gre: a master WITHOUT a helper (no CT rule yet): tcp 10.0.1.2:40000 -> 10.0.2.2:1723"
	bgrun in_server $NLX tcp-listen 10.0.2.2 1723 3
	sleep 1.5
	run in_client $NLX tcp-connect 10.0.1.2 40000 10.0.2.2 1723 0
	run conntrack -L -p tcp
	run $NLX exp 4 6,10.0.1.2,10.0.2.2,40000,1723 47,10.0.2.2,10.0.1.2,0,100 \
		255.255.255.255,255.255.255.255,0,65535
	bgout
	step "gre: user-space helper upptp (tcp) on tcp/1723, master 10.0.1.2:40001 -> 10.0.2.2:1723"
	run nfct add helper upptp inet tcp
	run $CTHNL new upptp 2 6 --queue 0 --status 1 --classes 2
	run $IPT -t raw -A PREROUTING -p tcp --dport 1723 -j CT --helper upptp
	bgrun in_server $NLX tcp-listen 10.0.2.2 1723 25
	sleep 1.5
	bgrun in_client $NLX tcp-connect 10.0.1.2 40001 10.0.2.2 1723 25
	sleep 2
	run conntrack -L -p tcp
	nfqlog
	step "gre: conntrack -I expect -p gre (the tool takes one -p for master and expectation)"
	run conntrack -I expect -p gre --orig-src 10.0.1.2 --orig-dst 10.0.2.2 \
		--orig-key-src 40001 --orig-key-dst 1723 --reply-key-src 1723 --reply-key-dst 40001 \
		--tuple-src 10.0.2.2 --tuple-dst 10.0.1.2 --tuple-key-src 0 --tuple-key-dst 100 \
		--mask-src 255.255.255.255 --mask-dst 255.255.255.255 --mask-key-src 0 --mask-key-dst 65535 -t 60
	step "gre: baseline GRE v1 server -> client key 100, no expectation"
	bgrun in_client $NLX gre-recv 3
	sleep 1.5
	run in_server $NLX gre-send 10.0.2.2 10.0.1.2 100 2
	bgout
	fw_counts FORWARD
	run conntrack -L -p gre
	run conntrack -D -p gre
	step "gre: ctnetlink EXP_NEW, tcp master, GRE tuple with src key 7 exact (mask 0xffff): server -> client key 300"
	$IPT -Z FORWARD
	run $NLX exp 4 6,10.0.1.2,10.0.2.2,40001,1723 47,10.0.2.2,10.0.1.2,7,300 \
		255.255.255.255,255.255.255.255,65535,65535
	run conntrack -L expect
	bgrun in_client $NLX gre-recv 3
	sleep 1.5
	run in_server $NLX gre-send 10.0.2.2 10.0.1.2 300 2
	bgout
	run conntrack -L -p gre
	fw_counts FORWARD
	run conntrack -F expect
	step "gre: ctnetlink EXP_NEW, GRE tuple dst key only (src key masked 0), class 0 server->client key 100, class 1 client->server key 200"
	$IPT -Z FORWARD
	run $NLX exp 4 6,10.0.1.2,10.0.2.2,40001,1723 47,10.0.2.2,10.0.1.2,0,100 \
		255.255.255.255,255.255.255.255,0,65535 --class 0
	run $NLX exp 4 6,10.0.1.2,10.0.2.2,40001,1723 47,10.0.1.2,10.0.2.2,0,200 \
		255.255.255.255,255.255.255.255,0,65535 --class 1
	run conntrack -L expect
	bgrun in_client $NLX gre-recv 5
	bgrun in_server $NLX gre-recv 5
	sleep 1.5
	run in_server $NLX gre-send 10.0.2.2 10.0.1.2 100 3
	run in_client $NLX gre-send 10.0.1.2 10.0.2.2 200 3
	bgout
	run conntrack -L -p gre
	run conntrack -L expect
	fw_counts FORWARD
	run conntrack -F expect

	step "gre: expectation functions by name (CTA_EXPECT_FN), nf_nat loaded, no nf_nat_sip/pptp"
	k=400
	for fn in nat-follow-master sip pptp Q.931 callforwarding; do
		run $NLX exp 4 6,10.0.1.2,10.0.2.2,40001,1723 47,10.0.2.2,10.0.1.2,0,$k \
			255.255.255.255,255.255.255.255,0,65535 --fn "$fn"
		k=$((k + 1))
	done
	run modprobe -a nf_nat_sip nf_nat_pptp nf_nat_h323
	run grep -E "^nf_(conntrack|nat)_(sip|pptp|h323|proto_gre)" /proc/modules
	for fn in nat-follow-master sip pptp Q.931 callforwarding; do
		run $NLX exp 4 6,10.0.1.2,10.0.2.2,40001,1723 47,10.0.2.2,10.0.1.2,0,$k \
			255.255.255.255,255.255.255.255,0,65535 --fn "$fn"
		k=$((k + 1))
	done
	run conntrack -L expect
	bgout
	run conntrack -F expect
	run conntrack -F

	step "gre: nf_conntrack_pptp on tcp/1723 next to user-space ftp on tcp/21"
	topo_ct_del
	run $CTHNL del upptp --tuple 2 6
	run modprobe -r nf_nat_sip nf_conntrack_sip nf_nat_h323 nf_conntrack_h323
	run nfct add helper ftp inet tcp
	echo "(nfct adds it disabled and an update is refused: deleted and created enabled over nfnetlink_cthelper, as conntrackd would have it)"
	run nfct list helper
	run nfct delete helper ftp inet tcp
	run $CTHNL new ftp 2 6 --queue 0 --status 1
	run nfct list helper
	$IPT -t raw -A PREROUTING -p tcp --dport 1723 -j CT --helper pptp
	$IPT -t raw -A PREROUTING -p tcp --dport 21 -j CT --helper ftp
	run $IPT -t raw -S PREROUTING
	run grep -E "^nf_(conntrack|nat)_(pptp|ftp)" /proc/modules
	$IPT -Z FORWARD
	bgrun in_server $NLX pptp-server 10.0.2.2 14 555
	bgrun in_server $NLX tcp-listen 10.0.2.2 21 14
	sleep 2.5
	run in_client $NLX pptp-client 10.0.1.2 10.0.2.2 777 0
	run conntrack -L expect
	run conntrack -L -p tcp
	bgrun in_client $NLX gre-recv 5
	bgrun in_server $NLX gre-recv 5
	sleep 1.5
	run in_server $NLX gre-send 10.0.2.2 10.0.1.2 777 3
	run in_client $NLX gre-send 10.0.1.2 10.0.2.2 555 3
	run in_client $NLX tcp-connect 10.0.1.2 40021 10.0.2.2 21 0
	run conntrack -L -p gre
	run conntrack -L -p tcp --dport 21
	fw_counts FORWARD
	echo "(waiting for background listeners)"
	bgout
	topo_ct_del
	run nfct delete helper ftp inet tcp
}

case ${1:-} in
nolistener) kill $NFQ; wait $NFQ; part_${2:-prefix}; exit 0 ;;
prefix) part_prefix ;;
mcast) part_mcast ;;
gre) part_gre ;;
*) echo "usage: $0 prefix|mcast|gre" >&2; exit 2 ;;
esac
nfqlog
kill $NFQ
topo_teardown
echo "done"
