/*
 * rocx device model: the admin queue, and the commands that create no
 * RDMA object.
 *
 * The ring: AQ_CTRL enables it (its geometry is checked and taken then),
 * AQ_DB moves its producer, and the engine executes up to
 * ROCX_CORE_AQ_BUDGET commands per run, answering each with a completion
 * that carries a phase bit.  Each opcode goes to the file of its object
 * (EQs, Ethernet rings, GIDs, MRs, CQs, QPs); IDENTIFY, SET_PORT,
 * QUERY_PORT, GET_STATS, user contexts and PDs are executed here.
 *
 * Copyright (c) 2025 The rocx authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "rocx-int.h"

/* ---- The ring: AQ_CTRL, AQ_STATUS, AQ_HEAD, AQ_DB ---- */

static void rocx_aq_enable(RocxCore *c, unsigned off)
{
    uint8_t ld = ROCX_FIELD_GET(ROCX_AQ_CTRL_LOG_DEPTH_MASK, c->regs.aq_ctrl);
    uint64_t sq = (uint64_t)c->regs.aq_sq_base_hi << 32 |
                  c->regs.aq_sq_base_lo;
    uint64_t cq = (uint64_t)c->regs.aq_cq_base_hi << 32 |
                  c->regs.aq_cq_base_lo;

    if (ld < ROCX_AQ_MIN_LOG_DEPTH || ld > ROCX_AQ_MAX_LOG_DEPTH ||
        (sq & (ROCX_AQ_CMD_SIZE - 1)) || (cq & (ROCX_AQ_CQE_SIZE - 1))) {
        c->aq.error = true;
        rocx_gerr(c, ROCX_GERR_AQ_CONFIG, off,
                  "AQ enable: log depth %u, SQ 0x%" PRIx64 ", CQ 0x%" PRIx64,
                  ld, sq, cq);
        return;
    }
    c->aq.enabled = true;
    c->aq.error = false;
    c->aq.log_depth = ld;
    c->aq.sq_base = sq;
    c->aq.cq_base = cq;
    c->aq.head = 0;
    c->aq.pi = 0;
}

void rocx_wr_aq_ctrl(RocxCore *c, unsigned off, uint32_t val)
{
    const uint32_t known = ROCX_AQ_CTRL_LOG_DEPTH_MASK | ROCX_AQ_CTRL_ENABLE |
                           ROCX_AQ_CTRL_IRQ_EN | ROCX_AQ_CTRL_VECTOR_MASK;
    unsigned vec = ROCX_FIELD_GET(ROCX_AQ_CTRL_VECTOR_MASK, val);
    uint8_t ld = ROCX_FIELD_GET(ROCX_AQ_CTRL_LOG_DEPTH_MASK, val);

    if (val & ~known) {
        rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                  "AQ_CTRL: reserved bits in 0x%" PRIx32, val);
        return;
    }
    if (vec >= ROCX_MSIX_VECTORS) {
        rocx_gerr(c, ROCX_GERR_VECTOR, off,
                  "AQ_CTRL: vector %u out of range", vec);
        return;
    }
    if (!(val & ROCX_AQ_CTRL_ENABLE)) {
        c->regs.aq_ctrl = val;
        c->aq.enabled = false;
        return;
    }
    if (c->aq.enabled || (c->regs.aq_ctrl & ROCX_AQ_CTRL_ENABLE)) {
        /*
         * Already enabled (or failed to enable): only the interrupt
         * settings may change; the ring geometry needs a disable first.
         */
        if (c->aq.enabled && ld != c->aq.log_depth) {
            rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                      "AQ_CTRL: depth change while enabled");
            return;
        }
        c->regs.aq_ctrl = val;
        return;
    }
    c->regs.aq_ctrl = val;
    rocx_aq_enable(c, off);
}

uint32_t rocx_rd_aq(RocxCore *c, unsigned off)
{
    if (off == ROCX_REG_AQ_HEAD) {
        return c->aq.head;
    }
    return (c->aq.enabled ? ROCX_AQ_STATUS_ENABLED : 0) |
           (c->aq.error ? ROCX_AQ_STATUS_ERROR : 0);
}

void rocx_wr_aq_db(RocxCore *c, unsigned off, uint32_t val)
{
    uint16_t depth = 1u << c->aq.log_depth;

    if (val > 0xffff) {
        rocx_gerr(c, ROCX_GERR_REG_VALUE, off,
                  "AQ_DB: 0x%" PRIx32 " has bits above 15", val);
        return;
    }
    if (!c->aq.enabled) {
        rocx_gerr(c, ROCX_GERR_AQ_CONFIG, off, "AQ_DB: queue not enabled");
        return;
    }
    if ((uint16_t)(val - c->aq.head) > depth) {
        rocx_gerr(c, ROCX_GERR_AQ_INDEX, val,
                  "AQ_DB: producer %" PRIu32 " more than %u ahead of head %u",
                  val, depth, c->aq.head);
        return;
    }
    rocx_count(c, ROCX_STAT_DOORBELLS, 1);
    c->aq.pi = val;
    if (c->aq.pi != c->aq.head) {
        rocx_schedule(c);
    }
}

/* ---- Admin commands ---- */

static void rocx_cmd_identify(RocxCore *c, const union rocx_aq_cmd *cmd,
                              RocxAqResult *res)
{
    uint64_t addr = ldq_le_p(&cmd->identify.addr);
    uint32_t len = ldl_le_p(&cmd->identify.len);
    struct rocx_identify id;

    if (len < sizeof(id)) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    memset(&id, 0, sizeof(id));
    stl_le_p(&id.version, rocx_rd_ident(c, ROCX_REG_VERSION));
    stl_le_p(&id.caps, ROCX_CORE_CAPS);
    stl_le_p(&id.fw_version, ROCX_CORE_FW_VERSION);
    memcpy(id.mac, c->perm_mac, sizeof(id.mac));
    stw_le_p(&id.max_mtu, ROCX_MAX_MTU);
    stw_le_p(&id.num_vectors, ROCX_MSIX_VECTORS);
    stw_le_p(&id.db_pages, ROCX_DB_PAGES);
    stw_le_p(&id.max_eq, ROCX_CORE_MAX_EQ);
    stw_le_p(&id.max_eth_rings, ROCX_CORE_MAX_ETH_RINGS);
    stw_le_p(&id.gid_tbl_len, ROCX_CORE_GID_TBL_LEN);
    stw_le_p(&id.num_stats, ROCX_STAT_NUM);
    stl_le_p(&id.max_pd, ROCX_CORE_MAX_PD);
    stl_le_p(&id.max_uctx, ROCX_CORE_MAX_UCTX);
    stl_le_p(&id.max_qp, ROCX_CORE_MAX_QP);
    stl_le_p(&id.max_qp_wr, ROCX_CORE_MAX_QP_WR);
    stl_le_p(&id.max_sge, ROCX_CORE_MAX_SGE);
    stl_le_p(&id.max_inline, ROCX_CORE_MAX_INLINE);
    stl_le_p(&id.max_cq, ROCX_CORE_MAX_CQ);
    stl_le_p(&id.max_cqe, ROCX_CORE_MAX_CQE);
    stl_le_p(&id.max_mr, ROCX_CORE_MAX_MR);
    stl_le_p(&id.max_srq, ROCX_CORE_MAX_SRQ);
    stl_le_p(&id.max_srq_wr, ROCX_CORE_MAX_SRQ_WR);
    stl_le_p(&id.max_rd_atom, ROCX_CORE_MAX_RD_ATOM);
    stq_le_p(&id.max_mr_size, ROCX_CORE_MAX_MR_SIZE);
    stq_le_p(&id.page_size_cap, ROCX_CORE_PAGE_SIZE_CAP);
    stq_le_p(&id.caps2, ROCX_CORE_CAPS2);
    stl_le_p(&id.max_mcast_macs, ROCX_CORE_MAX_MCAST_MACS);
    stl_le_p(&id.rx_buf_total, ROCX_CORE_RX_BUF_TOTAL);
    stl_le_p(&id.max_speed, ROCX_CORE_MAX_SPEED);
    id.atomic_cap = ROCX_CORE_ATOMIC_CAP;
    stl_le_p(&id.max_mw, ROCX_CORE_MAX_MW);
    stl_le_p(&id.max_fast_reg_pages, ROCX_CORE_MAX_FAST_REG_PAGES);
    stl_le_p(&id.max_srq_sge, ROCX_CORE_MAX_SRQ_SGE);
    stl_le_p(&id.max_xrcd, ROCX_CORE_MAX_XRCD);
    stl_le_p(&id.cqe_formats, ROCX_CORE_CQE_FORMATS);
    stl_le_p(&id.clock_khz, ROCX_CORE_CLOCK_KHZ);
    stl_le_p(&id.max_mcast_grp, ROCX_CORE_MAX_MCAST_GRP);
    stl_le_p(&id.max_mcast_qp_attach, ROCX_CORE_MAX_MCAST_QP_ATTACH);
    if (rocx_dma_write(c, addr, &id, sizeof(id))) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
    }
}

static void rocx_cmd_set_port(RocxCore *c, const union rocx_aq_cmd *cmd,
                              RocxAqResult *res)
{
    const struct rocx_aq_set_port *sp = &cmd->set_port;
    const uint32_t known = ROCX_PORT_SET_MTU | ROCX_PORT_SET_MAC |
                           ROCX_PORT_SET_ADMIN | ROCX_PORT_SET_RX_MODE;
    uint32_t valid = ldl_le_p(&sp->valid);
    uint16_t mtu = lduw_le_p(&sp->mtu);

    /* All fields are checked before any is applied. */
    if ((valid & ~known) ||
        ((valid & ROCX_PORT_SET_MTU) &&
         (mtu < ROCX_MIN_MTU || mtu > ROCX_MAX_MTU)) ||
        ((valid & ROCX_PORT_SET_MAC) && !rocx_mac_valid_unicast(sp->mac)) ||
        ((valid & ROCX_PORT_SET_ADMIN) && sp->admin_up > 1) ||
        ((valid & ROCX_PORT_SET_RX_MODE) &&
         (sp->rx_mode & ~(ROCX_RX_MODE_PROMISC | ROCX_RX_MODE_ALLMULTI)))) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (valid & ROCX_PORT_SET_MTU) {
        c->port.mtu = mtu;
        rocx_qp_port_mtu(c);
    }
    if (valid & ROCX_PORT_SET_MAC) {
        memcpy(c->port.mac, sp->mac, sizeof(c->port.mac));
    }
    if (valid & ROCX_PORT_SET_RX_MODE) {
        c->port.rx_mode = sp->rx_mode;
    }
    if (valid & ROCX_PORT_SET_ADMIN) {
        c->port.admin_up = sp->admin_up;
        if (sp->admin_up && c->ops->admin_up) {
            c->ops->admin_up(c->opaque);
        }
        rocx_link_update(c);
    }
}

static void rocx_cmd_get_stats(RocxCore *c, const union rocx_aq_cmd *cmd,
                               RocxAqResult *res)
{
    uint64_t addr = ldq_le_p(&cmd->get_stats.addr);
    uint32_t n = MIN(ldl_le_p(&cmd->get_stats.len) / 8,
                     (uint32_t)ROCX_STAT_NUM);
    uint8_t buf[ROCX_STAT_NUM * 8];
    uint32_t i;

    for (i = 0; i < n; i++) {
        stq_le_p(buf + i * 8, c->stats[i]);
    }
    if (n && rocx_dma_write(c, addr, buf, n * 8)) {
        res->status = ROCX_AQ_STS_DMA_ERROR;
        return;
    }
    res->result = n;
}

static void rocx_cmd_alloc_uctx(RocxCore *c, const union rocx_aq_cmd *cmd,
                                RocxAqResult *res)
{
    unsigned p;

    for (p = 1; p < ROCX_DB_PAGES; p++) {
        if (!c->uctx_used[p]) {
            c->uctx_used[p] = true;
            res->result = p;
            return;
        }
    }
    res->status = ROCX_AQ_STS_NO_RESOURCE;
}

static void rocx_cmd_dealloc_uctx(RocxCore *c, const union rocx_aq_cmd *cmd,
                                  RocxAqResult *res)
{
    uint32_t uctx = ldl_le_p(&cmd->uctx.uctx);
    unsigned i;

    if (uctx < 1 || uctx >= ROCX_DB_PAGES) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!c->uctx_used[uctx]) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* Objects still owned by the context keep it alive. */
    for (i = 0; i < ROCX_CORE_MAX_PD; i++) {
        if (c->pd_owner[i] == uctx + 1) {
            res->status = ROCX_AQ_STS_BAD_STATE;
            return;
        }
    }
    if (rocx_uctx_has_cq(c, uctx) || rocx_uctx_has_qp(c, uctx) ||
        rocx_uctx_has_srq(c, uctx) || rocx_uctx_has_xrcd(c, uctx)) {
        res->status = ROCX_AQ_STS_BAD_STATE;
        return;
    }
    c->uctx_used[uctx] = false;
}

static void rocx_cmd_create_pd(RocxCore *c, const union rocx_aq_cmd *cmd,
                               RocxAqResult *res)
{
    uint32_t uctx = ldl_le_p(&cmd->pd.uctx);
    unsigned i;

    if (uctx >= ROCX_DB_PAGES) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (uctx && !c->uctx_used[uctx]) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* pdn 0 is never handed out, so a zeroed field names no PD. */
    for (i = 0; i < ROCX_CORE_MAX_PD; i++) {
        if (!c->pd_owner[i]) {
            c->pd_owner[i] = uctx + 1;
            res->result = i + 1;
            return;
        }
    }
    res->status = ROCX_AQ_STS_NO_RESOURCE;
}

static void rocx_cmd_destroy_pd(RocxCore *c, const union rocx_aq_cmd *cmd,
                                RocxAqResult *res)
{
    uint32_t pdn = ldl_le_p(&cmd->pd.pdn);

    if (pdn < 1 || pdn > ROCX_CORE_MAX_PD) {
        res->status = ROCX_AQ_STS_INVALID;
        return;
    }
    if (!c->pd_owner[pdn - 1]) {
        res->status = ROCX_AQ_STS_NOT_FOUND;
        return;
    }
    /* MRs, QPs, windows and SRQs in the PD keep it alive. */
    if (rocx_pd_has_mr(c, pdn) || rocx_pd_has_qp(c, pdn) ||
        rocx_pd_has_mw(c, pdn) || rocx_pd_has_srq(c, pdn)) {
        res->status = ROCX_AQ_STS_BAD_STATE;
        return;
    }
    c->pd_owner[pdn - 1] = 0;
}

static void rocx_aq_execute(RocxCore *c, const union rocx_aq_cmd *cmd,
                            RocxAqResult *res)
{
    uint16_t op = lduw_le_p(&cmd->hdr.opcode);

    switch (op) {
    case ROCX_AQ_OP_NOP:
        break;
    case ROCX_AQ_OP_IDENTIFY:
        rocx_cmd_identify(c, cmd, res);
        break;
    case ROCX_AQ_OP_SET_PORT:
        rocx_cmd_set_port(c, cmd, res);
        break;
    case ROCX_AQ_OP_QUERY_PORT:
        res->result = rocx_core_link_status(c);
        res->result64 = c->port.mtu;
        break;
    case ROCX_AQ_OP_GET_STATS:
        rocx_cmd_get_stats(c, cmd, res);
        break;
    case ROCX_AQ_OP_CREATE_EQ:
        rocx_cmd_create_eq(c, cmd, res);
        break;
    case ROCX_AQ_OP_DESTROY_EQ:
        rocx_cmd_destroy_eq(c, cmd, res);
        break;
    case ROCX_AQ_OP_CREATE_ETH_RING:
        rocx_cmd_create_eth_ring(c, cmd, res);
        break;
    case ROCX_AQ_OP_DESTROY_ETH_RING:
        rocx_cmd_destroy_eth_ring(c, cmd, res);
        break;
    case ROCX_AQ_OP_SET_GID:
        rocx_cmd_set_gid(c, cmd, res);
        break;
    case ROCX_AQ_OP_DEL_GID:
        rocx_cmd_del_gid(c, cmd, res);
        break;
    case ROCX_AQ_OP_ALLOC_UCTX:
        rocx_cmd_alloc_uctx(c, cmd, res);
        break;
    case ROCX_AQ_OP_DEALLOC_UCTX:
        rocx_cmd_dealloc_uctx(c, cmd, res);
        break;
    case ROCX_AQ_OP_CREATE_PD:
        rocx_cmd_create_pd(c, cmd, res);
        break;
    case ROCX_AQ_OP_DESTROY_PD:
        rocx_cmd_destroy_pd(c, cmd, res);
        break;
    case ROCX_AQ_OP_SET_MCAST_MACS:
        rocx_cmd_set_mcast_macs(c, cmd, res);
        break;
    case ROCX_AQ_OP_SET_DCB:
        rocx_cmd_set_dcb(c, cmd, res);
        break;
    case ROCX_AQ_OP_QUERY_DCB:
        rocx_cmd_query_dcb(c, cmd, res);
        break;
    case ROCX_AQ_OP_SET_CC:
        rocx_cmd_set_cc(c, cmd, res);
        break;
    case ROCX_AQ_OP_QUERY_CC:
        rocx_cmd_query_cc(c, cmd, res);
        break;
    case ROCX_AQ_OP_REG_MR:
        rocx_cmd_reg_mr(c, cmd, res);
        break;
    case ROCX_AQ_OP_DEREG_MR:
        rocx_cmd_dereg_mr(c, cmd, res);
        break;
    case ROCX_AQ_OP_CREATE_CQ:
        rocx_cmd_create_cq(c, cmd, res);
        break;
    case ROCX_AQ_OP_DESTROY_CQ:
        rocx_cmd_destroy_cq(c, cmd, res);
        break;
    case ROCX_AQ_OP_CREATE_QP:
        rocx_cmd_create_qp(c, cmd, res);
        break;
    case ROCX_AQ_OP_MODIFY_QP:
        rocx_cmd_modify_qp(c, cmd, res);
        break;
    case ROCX_AQ_OP_QUERY_QP:
        rocx_cmd_query_qp(c, cmd, res);
        break;
    case ROCX_AQ_OP_DESTROY_QP:
        rocx_cmd_destroy_qp(c, cmd, res);
        break;
    case ROCX_AQ_OP_ALLOC_MW:
        rocx_cmd_alloc_mw(c, cmd, res);
        break;
    case ROCX_AQ_OP_DEALLOC_MW:
        rocx_cmd_dealloc_mw(c, cmd, res);
        break;
    case ROCX_AQ_OP_ALLOC_MR:
        rocx_cmd_alloc_mr(c, cmd, res);
        break;
    case ROCX_AQ_OP_REREG_MR:
        rocx_cmd_rereg_mr(c, cmd, res);
        break;
    case ROCX_AQ_OP_ALLOC_XRCD:
        rocx_cmd_alloc_xrcd(c, cmd, res);
        break;
    case ROCX_AQ_OP_DEALLOC_XRCD:
        rocx_cmd_dealloc_xrcd(c, cmd, res);
        break;
    case ROCX_AQ_OP_RESIZE_CQ:
        rocx_cmd_resize_cq(c, cmd, res);
        break;
    case ROCX_AQ_OP_CREATE_SRQ:
        rocx_cmd_create_srq(c, cmd, res);
        break;
    case ROCX_AQ_OP_MODIFY_SRQ:
        rocx_cmd_modify_srq(c, cmd, res);
        break;
    case ROCX_AQ_OP_QUERY_SRQ:
        rocx_cmd_query_srq(c, cmd, res);
        break;
    case ROCX_AQ_OP_DESTROY_SRQ:
        rocx_cmd_destroy_srq(c, cmd, res);
        break;
    case ROCX_AQ_OP_ATTACH_MCAST:
        rocx_cmd_attach_mcast(c, cmd, res);
        break;
    case ROCX_AQ_OP_DETACH_MCAST:
        rocx_cmd_detach_mcast(c, cmd, res);
        break;
    default:
        /* MWs, XRC, DCB and congestion control come in later versions. */
        res->status = ROCX_AQ_STS_UNSUPPORTED;
        break;
    }
    if (res->status == ROCX_AQ_STS_DMA_ERROR) {
        rocx_gerr(c, ROCX_GERR_DMA, op,
                  "admin opcode 0x%x: buffer not accessible", op);
    }
}

/* ---- Command loop ---- */

/* Execute up to a budget of commands; returns true if some remain. */
/* Fault injection: whether the command with this opcode hangs the queue. */
static bool rocx_aq_stall_here(RocxCore *c, uint16_t opcode)
{
    uint32_t at = c->fault.stall_at;

    if (!at || (at != ROCX_CORE_AQ_STALL_ANY + 1 && at != opcode + 1u)) {
        return false;
    }
    c->fault.stalled = true;
    if (c->ops->aq_stalled) {
        c->ops->aq_stalled(c->opaque, opcode);
    }
    return true;
}

bool rocx_core_set_aq_stall(RocxCore *c, int32_t opcode)
{
    if (opcode == ROCX_CORE_AQ_STALL_OFF) {
        c->fault.stall_at = 0;
        return true;
    }
    if (opcode < 0 || opcode > ROCX_CORE_AQ_STALL_ANY) {
        return false;
    }
    c->fault.stall_at = opcode + 1;
    return true;
}

int32_t rocx_core_aq_stall(RocxCore *c)
{
    return c->fault.stall_at ? (int32_t)c->fault.stall_at - 1 :
                               ROCX_CORE_AQ_STALL_OFF;
}

bool rocx_aq_process(RocxCore *c)
{
    uint32_t mask = (1u << c->aq.log_depth) - 1;
    unsigned done = 0;

    while (c->aq.enabled && !c->aq.error && !c->fault.stalled &&
           c->aq.head != c->aq.pi) {
        unsigned slot = c->aq.head & mask;
        union rocx_aq_cmd cmd;
        struct rocx_aq_cqe cqe;
        RocxAqResult res = { .status = ROCX_AQ_STS_OK };
        uint64_t addr;

        if (done == ROCX_CORE_AQ_BUDGET) {
            break;
        }
        addr = c->aq.sq_base + (uint64_t)slot * sizeof(cmd);
        if (rocx_dma_read(c, addr, &cmd, sizeof(cmd))) {
            c->aq.error = true;
            rocx_gerr(c, ROCX_GERR_DMA, ROCX_REG_AQ_SQ_BASE_LO,
                      "AQ: reading command at 0x%" PRIx64 " failed", addr);
            break;
        }
        if (rocx_aq_stall_here(c, lduw_le_p(&cmd.hdr.opcode))) {
            /* Fetched, never completed: the driver sees AQ_HEAD move. */
            c->aq.head++;
            break;
        }
        rocx_aq_execute(c, &cmd, &res);
        rocx_count(c, ROCX_STAT_AQ_COMMANDS, 1);
        if (res.status != ROCX_AQ_STS_OK) {
            rocx_count(c, ROCX_STAT_AQ_ERRORS, 1);
        }
        if (c->ops->aq_done) {
            c->ops->aq_done(c->opaque, lduw_le_p(&cmd.hdr.opcode),
                            lduw_le_p(&cmd.hdr.cmd_id), res.status);
        }

        memset(&cqe, 0, sizeof(cqe));
        memcpy(&cqe.cmd_id, &cmd.hdr.cmd_id, sizeof(cqe.cmd_id));
        cqe.status = res.status;
        cqe.flags = rocx_ring_phase(c->aq.head, c->aq.log_depth) ?
                    ROCX_AQ_CQE_PHASE : 0;
        stl_le_p(&cqe.result, res.result);
        stq_le_p(&cqe.result64, res.result64);
        /* The command ran, so it counts as consumed even if this fails. */
        c->aq.head++;
        done++;
        addr = c->aq.cq_base + (uint64_t)slot * sizeof(cqe);
        if (rocx_dma_write(c, addr, &cqe, sizeof(cqe))) {
            c->aq.error = true;
            rocx_gerr(c, ROCX_GERR_DMA, ROCX_REG_AQ_CQ_BASE_LO,
                      "AQ: writing completion at 0x%" PRIx64 " failed", addr);
            break;
        }
    }
    if (done && (c->regs.aq_ctrl & ROCX_AQ_CTRL_IRQ_EN)) {
        rocx_signal(c, ROCX_FIELD_GET(ROCX_AQ_CTRL_VECTOR_MASK,
                                      c->regs.aq_ctrl));
    }
    return c->aq.enabled && !c->aq.error && !c->fault.stalled &&
           c->aq.head != c->aq.pi;
}
