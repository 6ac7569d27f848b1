/*
 * rocx device model: UD queue pairs (contract 1.2, ROCX_CAP2_UD).
 *
 * Send: every WQE carries its whole address vector (struct rocx_wqe_ud),
 * checked against the GID table when the WQE is sent, so an address
 * handle is the consumer's memory and never a device object; the source
 * GID, MAC and VLAN come from the table, which only the kernel writes.
 * A message is one packet (SEND_ONLY or SEND_ONLY_IMM of the UD
 * transport, with a DETH) of at most the port's active MTU, and its WQE
 * completes as soon as the packet is out: UD has no acknowledgements.
 *
 * Receive: rocx_ud_rx() is the one place that decides which QPs a UD
 * packet reaches.  A QP takes a packet only with its own Q_Key and a
 * receive WQE posted; otherwise the packet is dropped and counted (UD has
 * no RNR NAK).  The first ROCX_UD_GRH_LEN bytes of the receive buffer get
 * the packet's network header, the data follows them.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- State machine ---- */

/*
 * A UD QP has no path, path MTU or peer: INIT takes its Q_Key, RTS its
 * first PSN; the Q_Key may change later.
 */
static const RocxQpTrans rocx_ud_trans[] = {
    { ROCX_QPS_RESET, ROCX_QPS_INIT, ROCX_QP_ATTR_QKEY,
      ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_INIT, ROCX_QPS_INIT, 0,
      ROCX_QP_ATTR_QKEY | ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_INIT, ROCX_QPS_RTR, 0,
      ROCX_QP_ATTR_QKEY | ROCX_QP_ATTR_PKEY_INDEX },
    { ROCX_QPS_RTR, ROCX_QPS_RTS, ROCX_QP_ATTR_SQ_PSN, ROCX_QP_ATTR_QKEY },
    { ROCX_QPS_RTS, ROCX_QPS_RTS, 0, ROCX_QP_ATTR_QKEY },
};

bool rocx_ud_trans_ok(uint8_t from, uint8_t to, uint32_t valid)
{
    return rocx_qp_trans_check(rocx_ud_trans, ARRAY_SIZE(rocx_ud_trans),
                               from, to, valid);
}

/* ---- Send ---- */

/*
 * The largest path MTU that fits the port's MTU with every RoCE header,
 * which is the active MTU ib_core reports; 0 if none fits.
 */
uint32_t rocx_ud_max_msg(RocxCore *c)
{
    unsigned n;

    for (n = 5; n >= 1; n--) {
        if (ROCX_PATH_MTU_BYTES(n) + ROCX_ROCE_MTU_OVERHEAD <= c->port.mtu) {
            return ROCX_PATH_MTU_BYTES(n);
        }
    }
    return 0;
}

/* Send the message of w; a completion status (and *verr). */
static uint8_t rocx_ud_send_one(RocxCore *c, RocxQp *qp, const RocxSendWqe *w,
                                uint8_t *verr)
{
    uint32_t dqpn = ldl_le_p(&w->ud.remote_qpn);
    uint32_t qkey = ldl_le_p(&w->ud.qkey);
    uint32_t max = rocx_ud_max_msg(c);
    RocxPath path;
    RocxTx tx = {
        .opcode = ROCX_TR_UD | (w->opcode == ROCX_WQE_SEND_IMM ?
                                ROCX_OP_SEND_ONLY_IMM : ROCX_OP_SEND_ONLY),
        .se = w->flags & ROCX_WQE_SOLICITED,
        .psn = qp->req.cur_psn,
        .imm = w->imm,
        .paylen = w->length,
    };

    if ((dqpn & ~ROCX_QPN_MASK) || !rocx_av_to_path(c, qp, &w->ud.av, &path)) {
        *verr = ROCX_VERR_BAD_WQE;
        return ROCX_WC_LOC_QP_OP_ERR;
    }
    if (rocx_gid_is_mcast(path.dgid)) {
        /* A group is addressed by its GID alone. */
        dqpn = ROCX_MCAST_QPN;
    }
    /* UD has no path MTU: a message is one packet, so the port decides. */
    if (w->length > max) {
        rocx_count(c, ROCX_STAT_ROCE_TX_MTU_DROPS, 1);
        *verr = ROCX_VERR_BAD_WQE;
        return ROCX_WC_LOC_LEN_ERR;
    }
    tx.qkey = (qkey & ROCX_WQE_UD_QKEY_OWN) ? qp->qkey : qkey;
    path.udp_sport = rocx_udp_sport(path.flow_label, qp->qpn, dqpn);
    /* The wire layer builds from the QP's path, peer and MTU. */
    qp->path = path;
    qp->dest_qpn = dqpn;
    qp->mtu = max;
    if (tx.paylen) {
        uint8_t *pay = rocx_wire_buf(c, qp) + rocx_wire_hdr_len(qp, tx.opcode);

        if (w->flags & ROCX_WQE_INLINE) {
            memcpy(pay, w->inline_data, tx.paylen);
        } else {
            *verr = rocx_sge_rw(c, w->sge, w->num_sge, qp->pdn, 0, 0, pay,
                                tx.paylen, false);
            if (*verr) {
                return ROCX_WC_LOC_PROT_ERR;
            }
        }
    }
    qp->req.cur_psn = rocx_psn_add(qp->req.cur_psn, 1);
    rocx_wire_send(c, qp, &tx);
    *verr = ROCX_VERR_NONE;
    return ROCX_WC_SUCCESS;
}

unsigned rocx_ud_send_run(RocxCore *c, RocxQp *qp, unsigned budget)
{
    RocxSendWqe *w = &qp->req.wqe;
    unsigned sent = 0;

    /* Nothing stays in flight: next and cur follow the oldest WQE. */
    while (sent < budget && qp->state == ROCX_QPS_RTS &&
           qp->req.ci != qp->sq_pi) {
        uint8_t verr, status = rocx_req_fetch(c, qp, qp->req.ci, w, &verr);

        if (status == ROCX_WC_SUCCESS) {
            status = rocx_ud_send_one(c, qp, w, &verr);
        }
        if (status != ROCX_WC_SUCCESS || (w->flags & ROCX_WQE_SIGNALED) ||
            (qp->flags & ROCX_QP_SQ_SIG_ALL)) {
            RocxCqeInfo ci = {
                .qpn = qp->qpn,
                .opcode = ROCX_CQE_OP_SEND,
                .status = status,
                .vendor_err = verr,
                .wqe_idx = qp->req.ci,
                .byte_len = w->length,
            };

            rocx_cq_write(c, qp->send_cqn, &ci);
        }
        qp->req.ci++;
        qp->req.next = qp->req.cur = qp->req.ci;
        qp->req.cur_cached = false;
        if (status != ROCX_WC_SUCCESS) {
            /* The CQE tells why; the rest of the SQ is flushed. */
            rocx_qp_error(c, qp, false, verr);
            break;
        }
        sent++;
    }
    return sent;
}

bool rocx_ud_send_ready(const RocxQp *qp)
{
    return qp->state == ROCX_QPS_RTS && qp->req.ci != qp->sq_pi;
}

void rocx_ud_next_path(RocxCore *c, RocxQp *qp)
{
    uint64_t off = (uint64_t)(qp->req.ci & ((1u << qp->sq_log_depth) - 1))
                   << qp->sq_wqe_shift;
    struct rocx_send_wqe hdr;
    RocxPath path;

    if (qp->type != ROCX_QPT_UD || !rocx_ud_send_ready(qp)) {
        return;
    }
    /*
     * Only the header: rocx_req_fetch() checks the whole WQE when it is
     * sent.  One with an unusable address vector sends nothing, so the
     * path it leaves does not matter.
     */
    if (!rocx_pbl_rw(c, &qp->pbl, off, &hdr, sizeof(hdr), false) &&
        rocx_av_to_path(c, qp, &hdr.ud.av, &path)) {
        qp->path = path;
    }
}

/* ---- Receive ---- */

/*
 * The receive buffer's first ROCX_UD_GRH_LEN bytes: the GRH (RoCE v1) or
 * the IPv6 header as received, or for IPv4 the header in the last 20 of
 * them, where ib_core's ib_init_ah_from_wc() looks for it.
 */
static void rocx_ud_grh(const RocxPkt *p, uint8_t *grh)
{
    if (p->net_type == ROCX_NET_ROCE_V2_IPV4) {
        memset(grh, 0, ROCX_UD_GRH_LEN - ROCX_IPV4_HLEN);
        memcpy(grh + ROCX_UD_GRH_LEN - ROCX_IPV4_HLEN, p->l3, ROCX_IPV4_HLEN);
    } else {
        memcpy(grh, p->l3, ROCX_GRH_LEN);
    }
}

static void rocx_ud_drop(RocxCore *c, uint64_t *why)
{
    (*why)++;
    rocx_count(c, ROCX_STAT_ROCE_RX_DROPPED, 1);
}

/* Place a packet into the QP's next receive WQE and complete it. */
void rocx_ud_deliver(RocxCore *c, RocxQp *qp, const RocxPkt *p)
{
    RocxRecvWqe *r = &qp->resp.rwqe;
    uint8_t grh[ROCX_UD_GRH_LEN];
    uint8_t status, verr;
    RocxCqeInfo ci = {
        .qpn = qp->qpn,
        .opcode = ROCX_CQE_OP_RECV,
        .flags = ROCX_CQE_RECV,
        .byte_len = ROCX_UD_GRH_LEN + p->paylen,
        .solicited = p->se,
    };

    if (p->qkey != qp->qkey) {
        rocx_ud_drop(c, &c->rdma.stats.ud_qkey_drops);
        return;
    }
    if (qp->resp.rq_ci == qp->rq_pi) {
        rocx_ud_drop(c, &c->rdma.stats.ud_no_wqe_drops);
        return;
    }
    rocx_count(c, ROCX_STAT_ROCE_RX_PACKETS, 1);
    ci.wqe_idx = qp->resp.rq_ci;
    status = rocx_resp_fetch(c, qp, &verr);
    if (status == ROCX_WC_SUCCESS && ci.byte_len > r->length) {
        status = ROCX_WC_LOC_LEN_ERR;
        verr = ROCX_VERR_RQ_OVERFLOW;
    }
    if (status == ROCX_WC_SUCCESS) {
        rocx_ud_grh(p, grh);
        verr = rocx_sge_rw(c, r->sge, r->num_sge, qp->pdn,
                           ROCX_ACCESS_LOCAL_WRITE, 0, grh, sizeof(grh), true);
        if (!verr && p->paylen) {
            verr = rocx_sge_rw(c, r->sge, r->num_sge, qp->pdn,
                               ROCX_ACCESS_LOCAL_WRITE, ROCX_UD_GRH_LEN,
                               (void *)p->payload, p->paylen, true);
        }
        if (verr) {
            status = ROCX_WC_LOC_PROT_ERR;
        }
    }
    ci.status = status;
    ci.vendor_err = verr;
    if (status == ROCX_WC_SUCCESS) {
        ci.flags |= ROCX_CQE_GRH;
        ci.src_qp = p->src_qp;
        ci.net_type = p->net_type;
        memcpy(ci.smac, p->smac, sizeof(ci.smac));
        ci.vlan = p->vlan;
        if (p->opf & ROCX_OPF_IMM) {
            ci.flags |= ROCX_CQE_WITH_IMM;
            ci.imm = p->imm;
        }
    } else {
        ci.byte_len = 0;
    }
    rocx_cq_write(c, qp->recv_cqn, &ci);
    qp->resp.rq_ci++;
    qp->resp.rwqe_valid = false;
    if (status != ROCX_WC_SUCCESS) {
        rocx_qp_error(c, qp, false, verr);
    }
}

/*
 * Which QP a UD packet is for: the one its BTH names, if it is a UD QP
 * that receives (RTR or RTS).
 */
void rocx_ud_rx(RocxCore *c, const RocxPkt *p)
{
    RocxQp *qp;

    if (rocx_gid_is_mcast(p->dgid)) {
        /* Every QP attached to the group (rocx-mcast.c). */
        rocx_mcast_rx(c, p);
        return;
    }
    qp = rocx_qp_get(c, p->dqpn);

    if (!qp || qp->type != ROCX_QPT_UD ||
        (qp->state != ROCX_QPS_RTR && qp->state != ROCX_QPS_RTS)) {
        rocx_ud_drop(c, &c->rdma.stats.ud_no_qp_drops);
        return;
    }
    rocx_ud_deliver(c, qp, p);
}
