// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib queue pairs: RC, and UC and UD where the device has them
 * (ROCX_CAP2_UC, ROCX_CAP2_UD), with user-space queues.
 *
 * The provider allocates one buffer holding the SQ and the RQ, sized from
 * the QP's capabilities (rocx_create_qp_req); the kernel checks the sizes
 * against the device's limits, pins the buffer and hands its page list to
 * the device.  Posting work requests and ringing the SQ/RQ doorbells is
 * then the provider's business alone.  Attributes travel to and from the
 * device in a struct rocx_qp_attr in coherent memory.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_umem.h>
#include <rdma/rocx-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "rocx_ib.h"

/*
 * Attributes MODIFY_QP carries to the device; IB_QP_CUR_STATE and
 * IB_QP_PORT are checked here and need no device field.
 */
static const struct {
	int ib;
	u32 rocx;
} rocx_ib_qp_attr_bits[] = {
	{ IB_QP_STATE, ROCX_QP_ATTR_STATE },
	{ IB_QP_ACCESS_FLAGS, ROCX_QP_ATTR_ACCESS },
	{ IB_QP_PKEY_INDEX, ROCX_QP_ATTR_PKEY_INDEX },
	{ IB_QP_QKEY, ROCX_QP_ATTR_QKEY },
	{ IB_QP_AV, ROCX_QP_ATTR_AV },
	{ IB_QP_PATH_MTU, ROCX_QP_ATTR_PATH_MTU },
	{ IB_QP_TIMEOUT, ROCX_QP_ATTR_TIMEOUT },
	{ IB_QP_RETRY_CNT, ROCX_QP_ATTR_RETRY_CNT },
	{ IB_QP_RNR_RETRY, ROCX_QP_ATTR_RNR_RETRY },
	{ IB_QP_RQ_PSN, ROCX_QP_ATTR_RQ_PSN },
	{ IB_QP_MAX_QP_RD_ATOMIC, ROCX_QP_ATTR_MAX_RD_ATOMIC },
	{ IB_QP_MIN_RNR_TIMER, ROCX_QP_ATTR_MIN_RNR_TIMER },
	{ IB_QP_SQ_PSN, ROCX_QP_ATTR_SQ_PSN },
	{ IB_QP_MAX_DEST_RD_ATOMIC, ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC },
	{ IB_QP_DEST_QPN, ROCX_QP_ATTR_DEST_QPN },
};

/**
 * rocx_ib_qp_attr_mask() - MODIFY_QP valid bits of an ib_qp_attr_mask
 * @ib_mask: IB_QP_* bits
 * @valid: set to the ROCX_QP_ATTR_* bits
 *
 * Return: 0, or -EOPNOTSUPP for attributes the device does not have
 * (alternate paths, SQD notification, capability changes, rate limits).
 */
VISIBLE_IF_KUNIT int rocx_ib_qp_attr_mask(int ib_mask, u32 *valid)
{
	int known = IB_QP_CUR_STATE | IB_QP_PORT;
	unsigned int i;

	*valid = 0;
	for (i = 0; i < ARRAY_SIZE(rocx_ib_qp_attr_bits); i++) {
		known |= rocx_ib_qp_attr_bits[i].ib;
		if (ib_mask & rocx_ib_qp_attr_bits[i].ib)
			*valid |= rocx_ib_qp_attr_bits[i].rocx;
	}
	return ib_mask & ~known ? -EOPNOTSUPP : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_attr_mask);

/**
 * rocx_ib_path_mtu() - contract path_mtu of an IB MTU
 * @mtu: IB_MTU_256..IB_MTU_4096
 *
 * Return: 1..5, or -EINVAL for anything else.
 */
VISIBLE_IF_KUNIT int rocx_ib_path_mtu(enum ib_mtu mtu)
{
	switch (mtu) {
	case IB_MTU_256:
		return 1;
	case IB_MTU_512:
		return 2;
	case IB_MTU_1024:
		return 3;
	case IB_MTU_2048:
		return 4;
	case IB_MTU_4096:
		return 5;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_path_mtu);

/**
 * rocx_ib_mtu_of_path() - IB MTU of a contract path_mtu
 * @path_mtu: as QUERY_QP reports it
 *
 * Return: the IB MTU, or 0 for a value the contract does not define.
 */
VISIBLE_IF_KUNIT enum ib_mtu rocx_ib_mtu_of_path(u8 path_mtu)
{
	static const enum ib_mtu mtus[] = {
		0, IB_MTU_256, IB_MTU_512, IB_MTU_1024, IB_MTU_2048,
		IB_MTU_4096,
	};

	return path_mtu < ARRAY_SIZE(mtus) ? mtus[path_mtu] : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_mtu_of_path);

/**
 * rocx_ib_net_type() - the headers a source GID's type asks for
 * @type: rdma_gid_attr_network_type() of the source GID
 *
 * Return: enum rocx_net_type value, or -EINVAL (InfiniBand has no place
 * on an Ethernet port).
 */
VISIBLE_IF_KUNIT int rocx_ib_net_type(enum rdma_network_type type)
{
	switch (type) {
	case RDMA_NETWORK_ROCE_V1:
		return ROCX_NET_ROCE_V1;
	case RDMA_NETWORK_IPV4:
		return ROCX_NET_ROCE_V2_IPV4;
	case RDMA_NETWORK_IPV6:
		return ROCX_NET_ROCE_V2_IPV6;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_net_type);

/**
 * rocx_ib_qp_type() - contract QP type of an ib_core one
 * @type: the QP type asked for
 * @caps2: IDENTIFY.caps2 of the device
 *
 * ib_modify_qp_is_ok() knows each type's attributes, and the device
 * checks the same table, so nothing else here depends on the type.
 *
 * Return: enum rocx_qp_type value, or -EOPNOTSUPP for a type the device
 * does not implement (UC needs ROCX_CAP2_UC, UD ROCX_CAP2_UD, XRC
 * ROCX_CAP2_XRC, GSI ROCX_CAP2_GSI).
 */
int rocx_ib_qp_type(enum ib_qp_type type, u64 caps2)
{
	switch (type) {
	case IB_QPT_RC:
		return ROCX_QPT_RC;
	case IB_QPT_UC:
		return caps2 & ROCX_CAP2_UC ? ROCX_QPT_UC : -EOPNOTSUPP;
	case IB_QPT_UD:
		return caps2 & ROCX_CAP2_UD ? ROCX_QPT_UD : -EOPNOTSUPP;
	case IB_QPT_XRC_INI:
		return caps2 & ROCX_CAP2_XRC ? ROCX_QPT_XRC_INI : -EOPNOTSUPP;
	case IB_QPT_XRC_TGT:
		return caps2 & ROCX_CAP2_XRC ? ROCX_QPT_XRC_TGT : -EOPNOTSUPP;
	case IB_QPT_GSI:
		/* ib_mad's QP1; the device refuses it to user contexts. */
		return caps2 & ROCX_CAP2_GSI ? ROCX_QPT_GSI : -EOPNOTSUPP;
	default:
		return -EOPNOTSUPP;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_type);

/* QP states: the contract numbers them as the IBA does, as ib_core does. */
static const u8 rocx_ib_qp_states[] = {
	[IB_QPS_RESET] = ROCX_QPS_RESET,
	[IB_QPS_INIT] = ROCX_QPS_INIT,
	[IB_QPS_RTR] = ROCX_QPS_RTR,
	[IB_QPS_RTS] = ROCX_QPS_RTS,
	[IB_QPS_SQD] = ROCX_QPS_SQD,
	[IB_QPS_SQE] = ROCX_QPS_SQE,
	[IB_QPS_ERR] = ROCX_QPS_ERR,
};

/**
 * rocx_ib_qp_state_of() - ib_core state of a state QUERY_QP reports
 * @state: enum rocx_qp_state value
 *
 * Return: the state; IB_QPS_ERR for a value the contract does not define.
 */
VISIBLE_IF_KUNIT enum ib_qp_state rocx_ib_qp_state_of(u8 state)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rocx_ib_qp_states); i++)
		if (rocx_ib_qp_states[i] == state)
			return i;
	return IB_QPS_ERR;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_state_of);

/**
 * rocx_ib_qp_attr_encode() - struct rocx_qp_attr for MODIFY_QP, AV aside
 * @attr: ib_core's attributes
 * @valid: ROCX_QP_ATTR_* bits from rocx_ib_qp_attr_mask()
 * @qa: zeroed buffer to fill
 *
 * Only fields named in @valid are written; the caller has range-checked
 * them and fills qa->av itself (it needs the source GID's netdev).
 *
 * Return: 0, or -EINVAL for a state or path MTU the contract does not
 * have.
 */
VISIBLE_IF_KUNIT int rocx_ib_qp_attr_encode(const struct ib_qp_attr *attr,
					    u32 valid, struct rocx_qp_attr *qa)
{
	int mtu;

	qa->valid = cpu_to_le32(valid);
	if (valid & ROCX_QP_ATTR_STATE) {
		if (attr->qp_state >= ARRAY_SIZE(rocx_ib_qp_states))
			return -EINVAL;
		qa->state = rocx_ib_qp_states[attr->qp_state];
	}
	if (valid & ROCX_QP_ATTR_ACCESS)
		qa->access = cpu_to_le32(rocx_ib_access(attr->qp_access_flags));
	if (valid & ROCX_QP_ATTR_PKEY_INDEX)
		qa->pkey_index = cpu_to_le16(attr->pkey_index);
	if (valid & ROCX_QP_ATTR_QKEY)
		qa->qkey = cpu_to_le32(attr->qkey);
	if (valid & ROCX_QP_ATTR_PATH_MTU) {
		mtu = rocx_ib_path_mtu(attr->path_mtu);
		if (mtu < 0)
			return mtu;
		qa->path_mtu = mtu;
	}
	if (valid & ROCX_QP_ATTR_TIMEOUT)
		qa->timeout = attr->timeout;
	if (valid & ROCX_QP_ATTR_RETRY_CNT)
		qa->retry_cnt = attr->retry_cnt;
	if (valid & ROCX_QP_ATTR_RNR_RETRY)
		qa->rnr_retry = attr->rnr_retry;
	if (valid & ROCX_QP_ATTR_RQ_PSN)
		qa->rq_psn = cpu_to_le32(attr->rq_psn & ROCX_IB_PSN_MASK);
	if (valid & ROCX_QP_ATTR_MAX_RD_ATOMIC)
		qa->max_rd_atomic = attr->max_rd_atomic;
	if (valid & ROCX_QP_ATTR_MIN_RNR_TIMER)
		qa->min_rnr_timer = attr->min_rnr_timer;
	if (valid & ROCX_QP_ATTR_SQ_PSN)
		qa->sq_psn = cpu_to_le32(attr->sq_psn & ROCX_IB_PSN_MASK);
	if (valid & ROCX_QP_ATTR_MAX_DEST_RD_ATOMIC)
		qa->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (valid & ROCX_QP_ATTR_DEST_QPN)
		qa->dest_qpn = cpu_to_le32(attr->dest_qp_num & ROCX_IB_QPN_MASK);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_attr_encode);

/**
 * rocx_ib_av_encode() - fill an address vector
 * @av: zeroed AV
 * @grh: destination GID, flow label, hop limit, traffic class, sgid index
 * @dmac: destination MAC (ib_core resolved it from the GID)
 * @vlan: VLAN id of the source GID's netdev, or ROCX_VLAN_NONE: what
 *	rocx_ib_add_gid() programmed for that GID, which the device uses
 *	whatever the AV says; written so the AV reads true
 * @net_type: enum rocx_net_type of the source GID
 * @prio: the priority (0..7) the packets go out with: the AH's service
 *	level, which for rdma_cm ib_core has already mapped from the ToS
 *	(through the netdev's prio_tc_map: rocx_core's netdev has traffic
 *	classes, so a VLAN netdev's egress map does not enter)
 */
VISIBLE_IF_KUNIT void rocx_ib_av_encode(struct rocx_av *av,
					const struct ib_global_route *grh,
					const u8 *dmac, u16 vlan, u8 net_type,
					u8 prio)
{
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	ether_addr_copy(av->dmac, dmac);
	av->vlan = cpu_to_le16(vlan);
	av->flow_label = cpu_to_le32((grh->flow_label & ROCX_IB_FLOW_LABEL_MASK) |
				     ROCX_FIELD_PREP(ROCX_AV_PRIO, prio & 7));
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->net_type = net_type;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_av_encode);

/**
 * rocx_ib_av_from_ah() - the address vector of an AH attribute
 * @ah: ib_core's attribute, with the GRH, source GID and resolved dmac
 * @av: zeroed AV to fill
 *
 * Return: 0, or -EINVAL for an AH without a GID a RoCE port can send from.
 */
int rocx_ib_av_from_ah(const struct rdma_ah_attr *ah, struct rocx_av *av)
{
	const struct ib_global_route *grh;
	u8 smac[ETH_ALEN];
	int net_type, err;
	u16 vlan;

	/* RoCE always routes by GID: ib_core set IB_AH_GRH and the sgid. */
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	if (!grh->sgid_attr)
		return -EINVAL;
	net_type = rocx_ib_net_type(rdma_gid_attr_network_type(grh->sgid_attr));
	if (net_type < 0)
		return net_type;
	err = rdma_read_gid_l2_fields(grh->sgid_attr, &vlan, smac);
	if (err)
		return err;
	if (vlan >= VLAN_N_VID)
		vlan = ROCX_VLAN_NONE;
	rocx_ib_av_encode(av, grh, ah->roce.dmac, vlan, net_type,
			  rdma_ah_get_sl(ah));
	return 0;
}

/**
 * rocx_ib_qp_req_comp() - the QP request bits offered to providers
 * @id: identify block
 *
 * Return: the bits of ROCX_IB_QP_REQ_COMP the device can honour: a
 * doorbell record only with ROCX_CAP2_DB_RECORD.
 */
u32 rocx_ib_qp_req_comp(const struct rocx_identify *id)
{
	u32 comp = ROCX_IB_QP_REQ_COMP;

	if (!(le64_to_cpu(id->caps2) & ROCX_CAP2_DB_RECORD))
		comp &= ~ROCX_CREATE_QP_REQ_DB_RECORD;
	return comp;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_req_comp);

/**
 * rocx_ib_qp_check() - check a provider's queue sizes against the device
 * @id: identify block
 * @cap: capabilities the application asked for
 * @req: the queue layout the provider chose for them
 *
 * Return: 0, -EOPNOTSUPP for request bits this kernel does not know, or
 * -EINVAL when the request exceeds the device or its queues cannot hold
 * what @cap asks.
 */
int rocx_ib_qp_check(const struct rocx_identify *id,
		     const struct ib_qp_cap *cap,
		     const struct rocx_create_qp_req *req)
{
	u32 max_wr = le32_to_cpu(id->max_qp_wr);
	u32 max_sge = le32_to_cpu(id->max_sge);

	if (req->comp_mask & ~rocx_ib_qp_req_comp(id))
		return -EOPNOTSUPP;
	if (!req->buf_addr || !PAGE_ALIGNED(req->buf_addr))
		return -EINVAL;
	if (cap->max_send_wr > max_wr || cap->max_recv_wr > max_wr ||
	    cap->max_send_sge > max_sge || cap->max_recv_sge > max_sge ||
	    cap->max_inline_data > le32_to_cpu(id->max_inline))
		return -EINVAL;

	if (req->sq_log_depth < ROCX_IB_SQ_MIN_LOG_DEPTH ||
	    req->sq_log_depth > ROCX_IB_WQ_MAX_LOG_DEPTH ||
	    req->sq_wqe_shift < ROCX_IB_SQ_MIN_WQE_SHIFT ||
	    req->sq_wqe_shift > ROCX_IB_SQ_MAX_WQE_SHIFT)
		return -EINVAL;
	/* Depths are powers of two: allow rounding up from the device's limit. */
	if (BIT(req->sq_log_depth) < cap->max_send_wr ||
	    BIT(req->sq_log_depth) > roundup_pow_of_two(max_wr))
		return -EINVAL;
	if (BIT(req->sq_wqe_shift) < ROCX_SEND_WQE_HDR +
	    cap->max_send_sge * sizeof(struct rocx_sge) ||
	    BIT(req->sq_wqe_shift) < ROCX_SEND_WQE_HDR + cap->max_inline_data)
		return -EINVAL;

	/*
	 * No SRQ in this driver: rq_log_depth 0 means no receive queue, which
	 * is fine with any SGE count as long as nothing is to be posted.
	 */
	if (!req->rq_log_depth)
		return cap->max_recv_wr ? -EINVAL : 0;
	if (req->rq_log_depth > ROCX_IB_WQ_MAX_LOG_DEPTH ||
	    req->rq_wqe_shift < ROCX_IB_RQ_MIN_WQE_SHIFT ||
	    req->rq_wqe_shift > ROCX_IB_RQ_MAX_WQE_SHIFT)
		return -EINVAL;
	if (BIT(req->rq_log_depth) < cap->max_recv_wr ||
	    BIT(req->rq_log_depth) > roundup_pow_of_two(max_wr))
		return -EINVAL;
	if (BIT(req->rq_wqe_shift) < ROCX_RECV_WQE_HDR +
	    cap->max_recv_sge * sizeof(struct rocx_sge))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_check);

/**
 * rocx_ib_qp_caps() - what a checked queue layout really holds
 * @id: identify block
 * @req: layout that passed rocx_ib_qp_check()
 * @cap: set to the capabilities, reported back to the application
 */
void rocx_ib_qp_caps(const struct rocx_identify *id,
		     const struct rocx_create_qp_req *req,
		     struct ib_qp_cap *cap)
{
	u32 send_room = BIT(req->sq_wqe_shift) - ROCX_SEND_WQE_HDR;
	u32 max_sge = le32_to_cpu(id->max_sge);

	memset(cap, 0, sizeof(*cap));
	cap->max_send_wr = BIT(req->sq_log_depth);
	cap->max_send_sge = min_t(u32, send_room / sizeof(struct rocx_sge),
				  max_sge);
	cap->max_inline_data = min(send_room, le32_to_cpu(id->max_inline));
	if (req->rq_log_depth) {
		cap->max_recv_wr = BIT(req->rq_log_depth);
		cap->max_recv_sge =
			min_t(u32, (BIT(req->rq_wqe_shift) - ROCX_RECV_WQE_HDR) /
				   sizeof(struct rocx_sge), max_sge);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_caps);

/**
 * rocx_ib_qp_buf_size() - bytes of the queue buffer the device reads
 * @req: a checked layout
 *
 * The SQ and the RQ, and the doorbell record after them if there is one.
 */
size_t rocx_ib_qp_buf_size(const struct rocx_create_qp_req *req)
{
	size_t size = (size_t)1 << (req->sq_log_depth + req->sq_wqe_shift);

	if (req->rq_log_depth)
		size += (size_t)1 << (req->rq_log_depth + req->rq_wqe_shift);
	if (req->comp_mask & ROCX_CREATE_QP_REQ_DB_RECORD)
		size += ROCX_DB_RECORD_SIZE;
	return size;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_buf_size);

/**
 * rocx_ib_qp_create_cmd() - encode the CREATE_QP command of a QP
 * @cmd: filled in whole
 * @init: ib_core's attributes: signalling, CQs and SRQ
 * @type: the device's QP type (rocx_ib_qp_type())
 * @flags: ROCX_QP_* flags besides ROCX_QP_SQ_SIG_ALL, which @init gives
 * @req: the checked queue layout
 * @pdn: the QP's protection domain
 * @uctx: the owning user context, 0 for a kernel QP
 * @pbl: the queue buffer's page list
 *
 * One encoder for user and kernel QPs, so the two cannot drift apart.
 * An XRC initiator has no receive side, hence no receive CQ (0).
 */
void rocx_ib_qp_create_cmd(struct rocx_aq_create_qp *cmd,
			   const struct ib_qp_init_attr *init, u8 type,
			   u8 flags, const struct rocx_create_qp_req *req,
			   u32 pdn, u32 uctx, const struct rocx_ib_pbl *pbl)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = cpu_to_le16(ROCX_AQ_OP_CREATE_QP);
	cmd->type = type;
	if (init->sq_sig_type == IB_SIGNAL_ALL_WR)
		flags |= ROCX_QP_SQ_SIG_ALL;
	if (req->comp_mask & ROCX_CREATE_QP_REQ_DB_RECORD)
		flags |= ROCX_QP_DB_RECORD;
	cmd->flags = flags;
	cmd->sq_log_depth = req->sq_log_depth;
	cmd->rq_log_depth = req->rq_log_depth;
	cmd->sq_wqe_shift = req->sq_wqe_shift;
	cmd->rq_wqe_shift = req->rq_wqe_shift;
	cmd->pdn = cpu_to_le32(pdn);
	cmd->send_cqn = cpu_to_le32(to_rocx_ib_cq(init->send_cq)->cqn);
	cmd->recv_cqn = cpu_to_le32(init->recv_cq ?
				    to_rocx_ib_cq(init->recv_cq)->cqn : 0);
	cmd->srqn = cpu_to_le32(init->srq ? to_rocx_ib_srq(init->srq)->srqn :
				ROCX_NO_SRQ);
	cmd->uctx = cpu_to_le32(uctx);
	rocx_ib_pbl_to_hw(pbl, &cmd->pbl);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_create_cmd);

static int rocx_ib_destroy_qp_cmd(struct rocx_ib_dev *dev, u32 qpn)
{
	union rocx_aq_verbs_cmd cmd = {};

	cmd.destroy_qp.hdr.opcode = cpu_to_le16(ROCX_AQ_OP_DESTROY_QP);
	cmd.destroy_qp.qpn = cpu_to_le32(qpn);
	return rocx_ib_exec(dev, &cmd, NULL);
}

static const struct rocx_ib_obj_kind rocx_ib_qp_kind = {
	.name = "QP",
	.num = "qpn",
	.mem = "queues",
	.destroy = rocx_ib_destroy_qp_cmd,
};

int rocx_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata)
{
	struct rocx_ib_ucontext *uc = rdma_udata_to_drv_context(udata,
		struct rocx_ib_ucontext, ibuc);
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibqp->device);
	struct rocx_ib_pd *pd = to_rocx_ib_pd(ibqp->pd);
	struct rocx_ib_qp *qp = to_rocx_ib_qp(ibqp);
	struct rocx_create_qp_resp resp = {};
	union rocx_aq_verbs_cmd cmd = {};
	struct rocx_create_qp_req req;
	struct ib_qp_cap cap = init->cap;
	struct rocx_ib_pbl pbl;
	struct rocx_aq_cqe cqe;
	u32 create_flags = init->create_flags;
	bool gone = false;
	u32 offset;
	int type;
	u8 mc_flags;
	int err;

	/* A target QP is ib_core's, without udata or queues (rocx_ib_xrc.c). */
	if (init->qp_type == IB_QPT_XRC_TGT)
		return rocx_ib_xrc_create_tgt(dev, qp, init);
	if (!uc) {
		err = rocx_ib_kqp_create(dev, qp, init);
		if (err)
			return err;
		goto insert;
	}
	type = rocx_ib_qp_type(init->qp_type, le64_to_cpu(dev->id->caps2));
	mc_flags = rocx_ib_mcast_qp_flags(le64_to_cpu(dev->id->caps2),
					  init->qp_type, &create_flags);
	if (type < 0 || create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	/* The device takes SRQ entries for RC QPs only (rocx-device.rst). */
	if (init->srq && type != ROCX_QPT_RC)
		return -EOPNOTSUPP;
	err = rocx_ib_udata_in(udata, &req, sizeof(req), ROCX_IB_QP_REQ_MIN);
	if (err)
		return err;
	/* On an SRQ the receive capabilities mean nothing, and no RQ is made. */
	if (init->srq) {
		cap.max_recv_wr = 0;
		cap.max_recv_sge = 0;
		if (req.rq_log_depth)
			return -EINVAL;
	}
	err = rocx_ib_qp_check(dev->id, &cap, &req);
	if (err) {
		ibdev_dbg(&dev->ibdev,
			  "bad QP request: wr %u/%u sge %u/%u inline %u, log depth %u/%u, wqe shift %u/%u\n",
			  init->cap.max_send_wr, init->cap.max_recv_wr,
			  init->cap.max_send_sge, init->cap.max_recv_sge,
			  init->cap.max_inline_data, req.sq_log_depth,
			  req.rq_log_depth, req.sq_wqe_shift, req.rq_wqe_shift);
		return err;
	}

	qp->umem = ib_umem_get(ibqp->device, req.buf_addr,
			       rocx_ib_qp_buf_size(&req), IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(qp->umem))
		return PTR_ERR(qp->umem);

	err = rocx_ib_pbl_from_umem(&pbl, &dev->pdev->dev, qp->umem,
				    dev->pgsz_bitmap, 0, &offset);
	if (!err) {
		rocx_ib_qp_create_cmd(&cmd.create_qp, init, type, mc_flags,
				      &req, pd->pdn, uc->uctx, &pbl);
		err = rocx_ib_exec(dev, &cmd, &cqe);
	}
	rocx_ib_pbl_destroy(&pbl);
	if (err) {
		err = rocx_ib_verbs_errno(err);
		goto err_release;
	}

	ibqp->qp_num = le32_to_cpu(cqe.result);
	rocx_ib_qp_caps(dev->id, &req, &qp->cap);
	init->cap = qp->cap;

insert:
	mutex_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	resp.qpn = ibqp->qp_num;
	resp.max_inline = qp->cap.max_inline_data;
	err = rocx_ib_obj_publish(dev, &rocx_ib_qp_kind, &dev->qp_xa,
				  ibqp->qp_num, qp, uc ? udata : NULL, &resp,
				  sizeof(resp), &gone);
	if (!err)
		return 0;
	mutex_destroy(&qp->lock);
	if (!gone)
		return err;	/* the device may still read: keep it pinned */
err_release:
	ib_umem_release(qp->umem);
	rocx_ib_kqp_free(dev, qp);
	return err;
}

/* A coherent buffer for one struct rocx_qp_attr exchange. */
static struct rocx_qp_attr *rocx_ib_qp_attr_alloc(struct rocx_ib_dev *dev,
						  dma_addr_t *dma)
{
	return dma_alloc_coherent(&dev->pdev->dev, sizeof(struct rocx_qp_attr),
				  dma, GFP_KERNEL);
}

static void rocx_ib_qp_attr_free(struct rocx_ib_dev *dev,
				 struct rocx_qp_attr *qa, dma_addr_t dma)
{
	dma_free_coherent(&dev->pdev->dev, sizeof(*qa), qa, dma);
}

static int rocx_ib_qp_attr_cmd(struct rocx_ib_dev *dev, u16 op, u32 qpn,
			       dma_addr_t dma)
{
	union rocx_aq_verbs_cmd cmd = {};

	cmd.qp_attr.hdr.opcode = cpu_to_le16(op);
	cmd.qp_attr.qpn = cpu_to_le32(qpn);
	cmd.qp_attr.addr = cpu_to_le64(dma);
	return rocx_ib_exec(dev, &cmd, NULL);
}

/**
 * rocx_ib_path_mtu_fits() - whether a path MTU fits the port's MTU
 * @path_mtu: the QP's path MTU
 * @netdev_mtu: the port's netdev MTU (L3 bytes)
 *
 * The device refuses a path MTU whose packets, RoCE headers included, do
 * not fit the port's MTU (ROCX_ROCE_MTU_OVERHEAD, the same headers
 * iboe_get_mtu() allows for): that is, one above the port's active MTU.
 *
 * Return: true if it fits.
 */
VISIBLE_IF_KUNIT bool rocx_ib_path_mtu_fits(enum ib_mtu path_mtu,
					    unsigned int netdev_mtu)
{
	int bytes = ib_mtu_enum_to_int(path_mtu);

	return bytes > 0 && bytes + ROCX_ROCE_MTU_OVERHEAD <= netdev_mtu;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_path_mtu_fits);

/* Range checks ib_modify_qp_is_ok() leaves to the driver. */
static int rocx_ib_modify_qp_check(struct rocx_ib_dev *dev,
				   const struct ib_qp_attr *attr, int mask)
{
	u32 max_rd = le32_to_cpu(dev->id->max_rd_atom);
	unsigned int mtu = READ_ONCE(dev->netdev->mtu);

	if ((mask & IB_QP_PORT) && attr->port_num != ROCX_IB_PORT)
		return -EINVAL;
	/* The device checks it too, against the MTU it was last given. */
	if ((mask & IB_QP_PATH_MTU) &&
	    !rocx_ib_path_mtu_fits(attr->path_mtu, mtu)) {
		ibdev_dbg(&dev->ibdev,
			  "path MTU %d does not fit the port's MTU %u\n",
			  ib_mtu_enum_to_int(attr->path_mtu), mtu);
		return -EINVAL;
	}
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > max_rd)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > max_rd)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	return 0;
}

int rocx_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibqp->device);
	struct rocx_ib_qp *qp = to_rocx_ib_qp(ibqp);
	enum ib_qp_state cur, next;
	struct rocx_qp_attr *qa;
	dma_addr_t dma;
	u32 valid;
	int err;

	if (udata) {
		err = rocx_ib_udata_in(udata, NULL, 0, 0);
		if (err)
			return err;
	}
	/* Not in ib_core's table for these QP types: rocx_ib_sched.c. */
	err = rocx_ib_qp_attr_mask(mask & ~IB_QP_RATE_LIMIT, &valid);
	if (err)
		return err;
	err = rocx_ib_modify_qp_check(dev, attr, mask);
	if (err)
		return err;

	mutex_lock(&qp->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type,
				mask & ~IB_QP_RATE_LIMIT)) {
		ibdev_dbg(&dev->ibdev,
			  "QP %u: no transition %d -> %d with mask %#x\n",
			  ibqp->qp_num, cur, next, mask);
		err = -EINVAL;
		goto out_unlock;
	}
	if (mask & IB_QP_RATE_LIMIT) {
		err = rocx_ib_rate_limit_check(le64_to_cpu(dev->id->caps2),
					       le32_to_cpu(dev->id->max_speed),
					       ibqp->qp_type, cur, next,
					       attr->rate_limit);
		if (err)
			goto out_unlock;
		valid |= ROCX_QP_ATTR_RATE_LIMIT;
	}

	qa = rocx_ib_qp_attr_alloc(dev, &dma);
	if (!qa) {
		err = -ENOMEM;
		goto out_unlock;
	}
	err = rocx_ib_qp_attr_encode(attr, valid, qa);
	if (!err && (mask & IB_QP_RATE_LIMIT))
		qa->rate_limit = cpu_to_le32(attr->rate_limit);
	if (!err && (mask & IB_QP_AV))
		err = rocx_ib_av_from_ah(&attr->ah_attr, &qa->av);
	if (!err)
		err = rocx_ib_qp_attr_cmd(dev, ROCX_AQ_OP_MODIFY_QP,
					  ibqp->qp_num, dma);
	rocx_ib_qp_attr_free(dev, qa, dma);
	/*
	 * A device that is gone has forgotten the QP: a kernel consumer
	 * taking it down gets ERR and its flush from the driver.
	 */
	if (err == -ENODEV && (mask & IB_QP_STATE) && next == IB_QPS_ERR &&
	    qp->kbuf.va) {
		rocx_ib_qp_sw_err(dev, qp);
		err = 0;
		goto out_unlock;
	}
	if (!err && (mask & IB_QP_STATE)) {
		if (next == IB_QPS_RESET)
			rocx_ib_kqp_reset(qp);
		/* Kernel post_send reads it without the mutex. */
		WRITE_ONCE(qp->state, next);
	}
out_unlock:
	mutex_unlock(&qp->lock);
	return rocx_ib_verbs_errno(err);
}

/* Fill @attr from what QUERY_QP wrote; a UD QP has no path or peer. */
static void rocx_ib_qp_attr_decode(const struct rocx_qp_attr *qa,
				   enum ib_qp_type type,
				   struct ib_qp_attr *attr)
{
	const struct rocx_av *av = &qa->av;
	union ib_gid dgid;

	attr->qp_state = rocx_ib_qp_state_of(qa->cur_state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = rocx_ib_mtu_of_path(qa->path_mtu);
	attr->timeout = qa->timeout;
	attr->retry_cnt = qa->retry_cnt;
	attr->rnr_retry = qa->rnr_retry;
	attr->min_rnr_timer = qa->min_rnr_timer;
	attr->max_rd_atomic = qa->max_rd_atomic;
	attr->max_dest_rd_atomic = qa->max_dest_rd_atomic;
	attr->pkey_index = le16_to_cpu(qa->pkey_index);
	attr->qp_access_flags = rocx_ib_access_to_ib(le32_to_cpu(qa->access));
	attr->qkey = le32_to_cpu(qa->qkey);
	attr->rq_psn = le32_to_cpu(qa->rq_psn) & ROCX_IB_PSN_MASK;
	attr->sq_psn = le32_to_cpu(qa->sq_psn) & ROCX_IB_PSN_MASK;
	attr->dest_qp_num = le32_to_cpu(qa->dest_qpn) & ROCX_IB_QPN_MASK;
	attr->port_num = ROCX_IB_PORT;
	attr->rate_limit = le32_to_cpu(qa->rate_limit);
	if (type == IB_QPT_UD || type == IB_QPT_GSI)
		return;

	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr->ah_attr, ROCX_IB_PORT);
	memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
	rdma_ah_set_grh(&attr->ah_attr, &dgid,
			le32_to_cpu(av->flow_label) & ROCX_IB_FLOW_LABEL_MASK,
			av->sgid_index, av->hop_limit, av->traffic_class);
	ether_addr_copy(attr->ah_attr.roce.dmac, av->dmac);
}

int rocx_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibqp->device);
	struct rocx_ib_qp *qp = to_rocx_ib_qp(ibqp);
	struct rocx_qp_attr *qa;
	dma_addr_t dma;
	int err = 0;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	mutex_lock(&qp->lock);
	/*
	 * Capabilities are the driver's to know; ask the device for the rest.
	 * A mask of 0 asks for everything: ib_core's restrack does, for the
	 * remote QPN, the PSNs and the state it reports.
	 */
	if (mask != IB_QP_CAP) {
		qa = rocx_ib_qp_attr_alloc(dev, &dma);
		if (!qa) {
			err = -ENOMEM;
			goto out_unlock;
		}
		err = rocx_ib_qp_attr_cmd(dev, ROCX_AQ_OP_QUERY_QP,
					  ibqp->qp_num, dma);
		if (!err) {
			rocx_ib_qp_attr_decode(qa, ibqp->qp_type, attr);
			/* The device moves QPs to ERR on its own. */
			WRITE_ONCE(qp->state, attr->qp_state);
		}
		rocx_ib_qp_attr_free(dev, qa, dma);
		if (err)
			goto out_unlock;
	} else {
		attr->qp_state = qp->state;
		attr->cur_qp_state = qp->state;
	}
	attr->cap = qp->cap;
	init->cap = qp->cap;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->port_num = ROCX_IB_PORT;
out_unlock:
	mutex_unlock(&qp->lock);
	return rocx_ib_verbs_errno(err);
}

/**
 * rocx_ib_qp_query_cc() - read a QP's reaction point state from the device
 * @qp: an RC or UC QP of a ROCX_CAP2_DCQCN device
 * @cc: filled with the rates and alpha QUERY_QP returns
 *
 * The device alone knows the rate it paces a QP at: it changes on every
 * CNP and recovery step, with no event to the driver.  A QP that never
 * saw a CNP reports the line rate and the initial alpha.
 *
 * Return: 0, -ENOENT for a QP destroy_qp has let go of, or a negative
 * errno when the command fails.
 */
int rocx_ib_qp_query_cc(struct rocx_ib_qp *qp, struct rocx_ib_qp_cc *cc)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(qp->ibqp.device);
	struct rocx_qp_attr *qa;
	dma_addr_t dma;
	int err;

	qa = rocx_ib_qp_attr_alloc(dev, &dma);
	if (!qa)
		return -ENOMEM;
	mutex_lock(&qp->lock);
	/* Its number may be another QP's by now. */
	if (qp->destroyed)
		err = -ENOENT;
	else
		err = rocx_ib_qp_attr_cmd(dev, ROCX_AQ_OP_QUERY_QP,
					  qp->ibqp.qp_num, dma);
	mutex_unlock(&qp->lock);
	if (!err) {
		cc->cur_rate = le32_to_cpu(qa->cc_cur_rate);
		cc->tgt_rate = le32_to_cpu(qa->cc_tgt_rate);
		cc->alpha = le32_to_cpu(qa->cc_alpha);
	}
	rocx_ib_qp_attr_free(dev, qa, dma);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_query_cc);

int rocx_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibqp->device);
	struct rocx_ib_qp *qp = to_rocx_ib_qp(ibqp);
	enum rocx_ib_destroy_outcome res;
	int err;

	/*
	 * ib_core removes a QP from its resource tracking, and waits for
	 * the queries running there, only after destroy_qp: such a query
	 * may still take @qp->lock afterwards, so the lock is never torn
	 * down (ib_core frees the memory), and it sees @destroyed.
	 */
	mutex_lock(&qp->lock);
	rocx_ib_kqp_dying(qp, true);
	res = rocx_ib_obj_destroy(dev, &rocx_ib_qp_kind, &dev->qp_xa,
				  ibqp->qp_num, qp, &err);
	if (res != ROCX_IB_DESTROY_REFUSED)
		qp->destroyed = true;
	mutex_unlock(&qp->lock);
	switch (res) {
	case ROCX_IB_DESTROYED:
		ib_umem_release(qp->umem);
		/* Cleans it out of its CQs, and off the dying list. */
		rocx_ib_kqp_free(dev, qp);
		return 0;
	case ROCX_IB_DESTROY_REFUSED:
		rocx_ib_kqp_dying(qp, false);
		return err;
	case ROCX_IB_DESTROY_UNKNOWN:
		/* ib_core frees it: off the list, its memory stays. */
		rocx_ib_kqp_dying(qp, false);
		break;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_destroy_qp);

/**
 * rocx_ib_qp_event_type() - the affiliated event a QP_ERROR reason raises
 * @info: the event's info, an enum rocx_vendor_err value
 *
 * The IBA names two kinds of work queue error apart from the catastrophic
 * one: an invalid request (the responder refused an opcode or a sequence)
 * and a local access violation (a key check failed).
 */
VISIBLE_IF_KUNIT enum ib_event_type rocx_ib_qp_event_type(u64 info)
{
	switch (info) {
	case ROCX_VERR_NAK_INVALID:
		return IB_EVENT_QP_REQ_ERR;
	case ROCX_VERR_BAD_LKEY:
	case ROCX_VERR_LKEY_BOUNDS:
	case ROCX_VERR_LKEY_ACCESS:
		return IB_EVENT_QP_ACCESS_ERR;
	case ROCX_VERR_PATH_MTU:	/* no work request was at fault */
	default:
		return IB_EVENT_QP_FATAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_qp_event_type);

/**
 * rocx_ib_qp_event() - report a QP the device moved to the error state
 * @dev: device
 * @qpn: from an EQ 0 QP_ERROR event
 * @info: the event's reason (enum rocx_vendor_err)
 */
void rocx_ib_qp_event(struct rocx_ib_dev *dev, u32 qpn, u64 info)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = rocx_ib_qp_event_type(info),
	};
	struct rocx_ib_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&dev->qp_xa, flags);
	qp = xa_load(&dev->qp_xa, qpn);
	if (qp && qp->ibqp.event_handler) {
		ev.element.qp = &qp->ibqp;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	xa_unlock_irqrestore(&dev->qp_xa, flags);
	/* The one reason an administrator causes, and may not expect. */
	if (info == ROCX_VERR_PATH_MTU)
		ibdev_warn_ratelimited(&dev->ibdev,
				       "QP %u: its path MTU no longer fits the port's MTU; moved to the error state\n",
				       qpn);
	else
		ibdev_dbg(&dev->ibdev,
			  "QP %u entered the error state (reason %llu)%s\n",
			  qpn, info, qp ? "" : " (no such QP)");
}
