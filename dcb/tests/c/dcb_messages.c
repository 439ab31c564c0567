/*
 * An independent encoder of DCB netlink messages, built only from the kernel's own headers:
 * fills struct ieee_pfc, struct ieee_ets, struct dcbnl_buffer, struct dcb_app, struct dcbmsg
 * and struct nlmsghdr, lays attributes out with NLA_HDRLEN/NLA_ALIGN and nests them with
 * NLA_F_NESTED as libmnl does, and prints each message as "<name> <hex>", sequence number and
 * port id 0. The values are the ones tests/kernel_structs.rs expects. It also lays out the
 * kernel's answers as net/dcb/dcbnl.c builds them (dcbnl_ieee_fill: nests without the flag,
 * rate limits and the peer's objects beside ours, the DCBX mode after the nest; a SET's
 * outcome as one octet), for the decoder.
 *
 * Usage: dcb_messages IFNAME
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/dcbnl.h>

static unsigned char buf[4096];

static struct nlmsghdr *begin(__u16 type, __u8 cmd)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct dcbmsg *dcb;

	memset(buf, 0, sizeof(buf));
	nlh->nlmsg_len = NLMSG_LENGTH(sizeof(struct dcbmsg));
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	dcb = NLMSG_DATA(nlh);
	dcb->dcb_family = AF_UNSPEC;
	dcb->cmd = cmd;
	return nlh;
}

static struct nlattr *put(struct nlmsghdr *nlh, __u16 type, const void *data, size_t len)
{
	struct nlattr *nla = (struct nlattr *)(buf + NLMSG_ALIGN(nlh->nlmsg_len));

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	if (data)
		memcpy((unsigned char *)nla + NLA_HDRLEN, data, len);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(nla->nla_len);
	return nla;
}

static struct nlattr *nest_start(struct nlmsghdr *nlh, __u16 type)
{
	return put(nlh, type | NLA_F_NESTED, NULL, 0);
}

static struct nlattr *nest_start_noflag(struct nlmsghdr *nlh, __u16 type)
{
	return put(nlh, type, NULL, 0);
}

static void nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
	nest->nla_len = buf + nlh->nlmsg_len - (unsigned char *)nest;
}

static void print(const char *name, const struct nlmsghdr *nlh)
{
	printf("%s ", name);
	for (__u32 i = 0; i < nlh->nlmsg_len; i++)
		printf("%02x", buf[i]);
	printf("\n");
}

static void ieee_set(const char *name, const char *ifname, __u16 type, const void *obj, size_t len)
{
	struct nlmsghdr *nlh = begin(RTM_SETDCB, DCB_CMD_IEEE_SET);
	struct nlattr *ieee;

	put(nlh, DCB_ATTR_IFNAME, ifname, strlen(ifname) + 1);
	ieee = nest_start(nlh, DCB_ATTR_IEEE);
	put(nlh, type, obj, len);
	nest_end(nlh, ieee);
	print(name, nlh);
}

static void app(const char *name, const char *ifname, __u8 cmd, const struct dcb_app *a)
{
	struct nlmsghdr *nlh = begin(RTM_SETDCB, cmd);
	struct nlattr *ieee, *table;

	put(nlh, DCB_ATTR_IFNAME, ifname, strlen(ifname) + 1);
	ieee = nest_start(nlh, DCB_ATTR_IEEE);
	table = nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	put(nlh, DCB_ATTR_IEEE_APP, a, sizeof(*a));
	nest_end(nlh, table);
	nest_end(nlh, ieee);
	print(name, nlh);
}

int main(int argc, char **argv)
{
	const char *ifname = argc > 1 ? argv[1] : "eth0";
	struct ieee_pfc pfc;
	struct ieee_ets ets;
	struct dcbnl_buffer buffer;
	struct dcb_app roce = { .selector = IEEE_8021QAZ_APP_SEL_DGRAM, .priority = 3, .protocol = 4791 };
	struct nlmsghdr *nlh;
	__u8 mode = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	int i;

	memset(&pfc, 0, sizeof(pfc));
	pfc.pfc_cap = 8;
	pfc.pfc_en = 0x28;
	pfc.mbc = 1;
	pfc.delay = 0xa1b2;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		pfc.requests[i] = 0x0102030405060700ULL + i;
		pfc.indications[i] = 0xf1f2f3f4f5f6f700ULL + i;
	}
	ieee_set("pfc-set", ifname, DCB_ATTR_IEEE_PFC, &pfc, sizeof(pfc));

	memset(&ets, 0, sizeof(ets));
	ets.willing = 1;
	ets.ets_cap = 8;
	ets.cbs = 0;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		ets.tc_tx_bw[i] = i < 4 ? 10 * (i + 1) : 0;
		ets.tc_rx_bw[i] = i < 4 ? 40 - 10 * i : 0;
		ets.tc_tsa[i] = i < 4 ? IEEE_8021QAZ_TSA_ETS : IEEE_8021QAZ_TSA_STRICT;
		ets.prio_tc[i] = i;
		ets.tc_reco_bw[i] = i < 4 ? 25 : 0;
		ets.tc_reco_tsa[i] = IEEE_8021QAZ_TSA_CB_SHAPER;
		ets.reco_prio_tc[i] = 7 - i;
	}
	ieee_set("ets-set", ifname, DCB_ATTR_IEEE_ETS, &ets, sizeof(ets));

	memset(&buffer, 0, sizeof(buffer));
	buffer.prio2buffer[3] = 1;
	buffer.prio2buffer[5] = 2;
	for (i = 0; i < DCBX_MAX_BUFFERS; i++)
		buffer.buffer_size[i] = 0x00012345u * (i + 1);
	buffer.total_size = 0x000abcde;
	ieee_set("buffer-set", ifname, DCB_ATTR_DCB_BUFFER, &buffer, sizeof(buffer));

	app("app-add", ifname, DCB_CMD_IEEE_SET, &roce);
	app("app-del", ifname, DCB_CMD_IEEE_DEL, &roce);

	nlh = begin(RTM_GETDCB, DCB_CMD_IEEE_GET);
	put(nlh, DCB_ATTR_IFNAME, ifname, strlen(ifname) + 1);
	print("ieee-get", nlh);

	{
		struct ieee_maxrate maxrate;
		struct ieee_pfc peer_pfc;
		struct dcb_app fcoe = { .selector = IEEE_8021QAZ_APP_SEL_ETHERTYPE, .priority = 3, .protocol = 0x8906 };
		struct nlattr *ieee, *table;
		__u8 err = (__u8)-EOPNOTSUPP;

		memset(&maxrate, 0xee, sizeof(maxrate));
		memset(&peer_pfc, 0, sizeof(peer_pfc));
		peer_pfc.pfc_en = 0xff;
		peer_pfc.delay = 7;
		nlh = begin(RTM_GETDCB, DCB_CMD_IEEE_GET);
		nlh->nlmsg_flags = 0;
		put(nlh, DCB_ATTR_IFNAME, ifname, strlen(ifname) + 1);
		ieee = nest_start_noflag(nlh, DCB_ATTR_IEEE);
		put(nlh, DCB_ATTR_IEEE_ETS, &ets, sizeof(ets));
		put(nlh, DCB_ATTR_IEEE_MAXRATE, &maxrate, sizeof(maxrate));
		put(nlh, DCB_ATTR_IEEE_PFC, &pfc, sizeof(pfc));
		put(nlh, DCB_ATTR_DCB_BUFFER, &buffer, sizeof(buffer));
		table = nest_start_noflag(nlh, DCB_ATTR_IEEE_APP_TABLE);
		put(nlh, DCB_ATTR_IEEE_APP, &roce, sizeof(roce));
		put(nlh, DCB_ATTR_IEEE_APP, &fcoe, sizeof(fcoe));
		nest_end(nlh, table);
		put(nlh, DCB_ATTR_IEEE_PEER_ETS, &ets, sizeof(ets));
		put(nlh, DCB_ATTR_IEEE_PEER_PFC, &peer_pfc, sizeof(peer_pfc));
		nest_end(nlh, ieee);
		put(nlh, DCB_ATTR_DCBX, &mode, sizeof(mode));
		print("ieee-get-answer", nlh);

		nlh = begin(RTM_SETDCB, DCB_CMD_IEEE_SET);
		nlh->nlmsg_flags = 0;
		put(nlh, DCB_ATTR_IEEE, &err, sizeof(err));
		print("ieee-set-answer", nlh);
	}

	nlh = begin(RTM_GETDCB, DCB_CMD_GDCBX);
	put(nlh, DCB_ATTR_IFNAME, ifname, strlen(ifname) + 1);
	print("dcbx-get", nlh);

	nlh = begin(RTM_SETDCB, DCB_CMD_SDCBX);
	put(nlh, DCB_ATTR_IFNAME, ifname, strlen(ifname) + 1);
	put(nlh, DCB_ATTR_DCBX, &mode, sizeof(mode));
	print("dcbx-set", nlh);
	return 0;
}
