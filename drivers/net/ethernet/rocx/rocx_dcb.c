// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx DCB: dcbnl (IEEE 802.1Qaz ETS, 802.1Qbb PFC, DSCP-to-priority,
 * app trust) and the link-pause fields ethtool maps to, all carried by
 * SET_DCB / QUERY_DCB (rocx-device.rst, "DCB: priorities, ETS and PFC").
 *
 * The device holds the configuration, not the driver: every getter sends
 * QUERY_DCB, every setter sends SET_DCB with only its own fields' valid
 * bits, so what `dcb ... show` prints is what the device applies.  The
 * read-modify-write setters (the DSCP table) and the pause/PFC exclusion
 * check rely on rtnl, which dcbnl and ethtool hold around every call.
 *
 * The Ethernet data path cannot ask the device per frame, so after every
 * change rocx_dcb_sync() reads back what it needs: the priority-to-class
 * table (the netdev's prio_tc_map, which picks the TX ring) and the
 * priorities xmit priority-tags.
 */
#include <kunit/visibility.h>
#include <linux/dcbnl.h>
#include <linux/math64.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/dcbnl.h>

#include "rocx.h"
#include "rocx_dcb.h"

/**
 * rocx_dcb_supported() - whether the device takes SET_DCB
 * @core: device
 *
 * Return: true with ROCX_CAP2_PFC or ROCX_CAP2_ETS.
 */
bool rocx_dcb_supported(struct rocx_core *core)
{
	return rocx_caps2(core) & (ROCX_CAP2_PFC | ROCX_CAP2_ETS);
}

static bool rocx_dcb_has_ets(struct rocx_core *core)
{
	return rocx_caps2(core) & ROCX_CAP2_ETS;
}

static int rocx_dcb_query(struct rocx_core *core, struct rocx_dcb_cfg *cfg)
{
	return rocx_aq_dcb(core, ROCX_AQ_OP_QUERY_DCB, cfg);
}

static int rocx_dcb_set(struct rocx_core *core, struct rocx_dcb_cfg *cfg)
{
	return rocx_aq_dcb(core, ROCX_AQ_OP_SET_DCB, cfg);
}

/* ---- Encoding: each setter's fields and nothing else ---- */

static void rocx_dcb_build(struct rocx_dcb_cfg *cfg, u32 valid)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->valid = cpu_to_le32(valid);
}

VISIBLE_IF_KUNIT void rocx_dcb_build_pfc(struct rocx_dcb_cfg *cfg, u8 pfc_en,
					 u16 quanta)
{
	rocx_dcb_build(cfg, ROCX_DCB_PFC);
	cfg->pfc_en = pfc_en;
	/*
	 * PFC's valid bit selects the quanta too; the device refuses fewer
	 * than ROCX_DCB_PFC_QUANTA_MIN (their refresh would flood the link).
	 */
	cfg->pfc_quanta = cpu_to_le16(quanta >= ROCX_DCB_PFC_QUANTA_MIN ?
				      quanta : ROCX_DCB_PFC_QUANTA);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_build_pfc);

VISIBLE_IF_KUNIT void rocx_dcb_build_pause(struct rocx_dcb_cfg *cfg, u8 pause)
{
	rocx_dcb_build(cfg, ROCX_DCB_PAUSE);
	cfg->pause = pause;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_build_pause);

VISIBLE_IF_KUNIT void rocx_dcb_build_trust(struct rocx_dcb_cfg *cfg, u8 trust)
{
	rocx_dcb_build(cfg, ROCX_DCB_TRUST);
	cfg->trust = trust;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_build_trust);

VISIBLE_IF_KUNIT void rocx_dcb_build_dscp2prio(struct rocx_dcb_cfg *cfg,
					       const u8 *map)
{
	rocx_dcb_build(cfg, ROCX_DCB_DSCP2PRIO);
	memcpy(cfg->dscp2prio, map, sizeof(cfg->dscp2prio));
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_build_dscp2prio);

static u8 rocx_tsa_of_ieee(u8 tsa)
{
	return tsa == IEEE_8021QAZ_TSA_STRICT ? ROCX_TSA_STRICT : ROCX_TSA_ETS;
}

/* @ets must have passed rocx_dcb_check_ets(). */
VISIBLE_IF_KUNIT void rocx_dcb_build_ets(struct rocx_dcb_cfg *cfg,
					 const struct ieee_ets *ets)
{
	unsigned int i;

	rocx_dcb_build(cfg, ROCX_DCB_ETS);
	for (i = 0; i < ROCX_NUM_PRIO; i++)
		cfg->prio_tc[i] = ets->prio_tc[i];
	for (i = 0; i < ROCX_NUM_TC; i++) {
		cfg->tc_tsa[i] = rocx_tsa_of_ieee(ets->tc_tsa[i]);
		/*
		 * dcb(8) sends back the shares it read, so a class turned
		 * strict still carries one: strict classes take no share.
		 */
		if (cfg->tc_tsa[i] == ROCX_TSA_ETS)
			cfg->tc_bw[i] = ets->tc_tx_bw[i];
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_build_ets);

/* dcbnl's maxrate is in kb/s, the device's in Mb/s: round up, not to 0. */
VISIBLE_IF_KUNIT void rocx_dcb_build_maxrate(struct rocx_dcb_cfg *cfg,
					     const struct ieee_maxrate *rate)
{
	unsigned int i;

	rocx_dcb_build(cfg, ROCX_DCB_MAXRATE);
	for (i = 0; i < ROCX_NUM_TC; i++) {
		u64 kbps = rate->tc_maxrate[i];
		/* Not DIV_ROUND_UP: kbps + 999 would wrap near U64_MAX. */
		u64 mbps = div_u64(kbps, 1000) + !!(kbps % 1000);

		cfg->tc_maxrate[i] = cpu_to_le32(min_t(u64, mbps, U32_MAX));
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_build_maxrate);

/**
 * rocx_dcb_check_ets() - whether the device can take @ets
 * @ets: dcbnl's request
 * @why: set to the reason when it cannot
 *
 * Checked before anything is sent, so a refused request never reaches
 * the device: strict and ETS are the transmission selection algorithms it
 * has; priorities map to its eight classes; the ETS classes' shares sum
 * to 100 when there is one.
 *
 * Return: 0, -EOPNOTSUPP for another algorithm, -EINVAL otherwise.
 */
VISIBLE_IF_KUNIT int rocx_dcb_check_ets(const struct ieee_ets *ets,
					const char **why)
{
	unsigned int i, sum = 0;
	bool any_ets = false;

	for (i = 0; i < ROCX_NUM_TC; i++) {
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_STRICT:
			break;
		case IEEE_8021QAZ_TSA_ETS:
			any_ets = true;
			sum += ets->tc_tx_bw[i];
			break;
		default:
			*why = "only strict and ets transmission selection are supported";
			return -EOPNOTSUPP;
		}
	}
	for (i = 0; i < ROCX_NUM_PRIO; i++) {
		if (ets->prio_tc[i] >= ROCX_NUM_TC) {
			*why = "a priority maps to a traffic class above 7";
			return -EINVAL;
		}
	}
	if (any_ets && sum != 100) {
		*why = "the ets classes' bandwidth shares do not sum to 100";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_check_ets);

/**
 * rocx_dcb_trust_of() - the device's trust mode for an app-trust list
 * @sel: selectors, most trusted first
 * @n: their number
 *
 * The device classifies by PCP or by DSCP; under DSCP trust non-IP
 * frames are priority 0 whether PCP follows in the list or not.
 *
 * Return: enum rocx_dcb_trust, or -EOPNOTSUPP for a list it cannot follow.
 */
VISIBLE_IF_KUNIT int rocx_dcb_trust_of(const u8 *sel, int n)
{
	if (n == 1 && sel[0] == DCB_APP_SEL_PCP)
		return ROCX_TRUST_PCP;
	if (n >= 1 && n <= 2 && sel[0] == IEEE_8021QAZ_APP_SEL_DSCP &&
	    (n == 1 || sel[1] == DCB_APP_SEL_PCP))
		return ROCX_TRUST_DSCP;
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_trust_of);

/**
 * rocx_dcb_trust_sel() - the app-trust list of a device trust mode
 * @trust: enum rocx_dcb_trust as QUERY_DCB reports it
 * @sel: receives the selectors, room for IEEE_8021QAZ_APP_SEL_MAX + 1
 *
 * Return: the number of selectors, or -EINVAL for an unknown mode.
 */
VISIBLE_IF_KUNIT int rocx_dcb_trust_sel(u8 trust, u8 *sel)
{
	switch (trust) {
	case ROCX_TRUST_PCP:
		sel[0] = DCB_APP_SEL_PCP;
		return 1;
	case ROCX_TRUST_DSCP:
		sel[0] = IEEE_8021QAZ_APP_SEL_DSCP;
		return 1;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_trust_sel);

/**
 * rocx_dcb_tag_prios() - priorities whose untagged frames go out tagged
 * @trust: enum rocx_dcb_trust
 * @pfc_en: the lossless priorities
 *
 * Under PCP trust a receiver (the peer, the switch) knows a frame's
 * priority only by its tag, so a frame of a PFC priority is sent
 * priority-tagged (VLAN 0, PCP = priority), as the device does for RoCE;
 * under DSCP trust the IP header says it and no tag is needed.
 *
 * Return: bit p for each priority to tag.
 */
VISIBLE_IF_KUNIT u8 rocx_dcb_tag_prios(u8 trust, u8 pfc_en)
{
	return trust == ROCX_TRUST_PCP ? pfc_en : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_tag_prios);

/**
 * rocx_dcb_sync() - give the data path the device's classes and tagging
 * @netdev: the port's netdev; rtnl held, or not registered yet
 *
 * Called at probe, after every SET_DCB that changes ETS, PFC or trust,
 * and after a reset (the device's defaults: class p for priority p, no
 * tagging).  If QUERY_DCB fails the previous state stays, or the
 * defaults' if there is none.
 */
void rocx_dcb_sync(struct net_device *netdev)
{
	struct rocx_ndev *nd = netdev_priv(netdev);
	static const u8 identity[ROCX_NUM_PRIO] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct rocx_dcb_cfg cfg;

	if (!rocx_dcb_supported(nd->core) || rocx_dcb_query(nd->core, &cfg)) {
		if (!netdev_get_num_tc(netdev))
			rocx_netdev_set_prio_tc(netdev, identity);
		return;
	}
	WRITE_ONCE(nd->tag_prios, rocx_dcb_tag_prios(cfg.trust, cfg.pfc_en));
	rocx_netdev_set_prio_tc(netdev, cfg.prio_tc);
}

/* ---- Link pause, for ethtool ---- */

/**
 * rocx_dcb_pause_pfc_check() - whether link pause and PFC may be both
 * @pause: ROCX_PAUSE_* bits wanted (or in force)
 * @pfc_en: lossless priorities in force (or wanted)
 * @why: set to the reason when they may not
 *
 * 802.3x pause stops every priority, which defeats PFC's point, so as on
 * mlx5 the two exclude each other; the device refuses them together as
 * INVALID, and the driver refuses first with a message that says why.
 *
 * Return: 0, or -EBUSY when both are on.
 */
int rocx_dcb_pause_pfc_check(u8 pause, u8 pfc_en, const char **why)
{
	if (pause && pfc_en) {
		*why = "link pause and PFC exclude each other";
		return -EBUSY;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_pause_pfc_check);

/**
 * rocx_dcb_get_pause() - the device's link pause and PFC settings
 * @core: device with rocx_dcb_supported()
 * @pause: receives ROCX_PAUSE_* bits
 * @pfc_en: receives the lossless priorities, or NULL
 *
 * Return: 0 or an errno.
 */
int rocx_dcb_get_pause(struct rocx_core *core, u8 *pause, u8 *pfc_en)
{
	struct rocx_dcb_cfg cfg;
	int err;

	err = rocx_dcb_query(core, &cfg);
	if (err)
		return err;
	*pause = cfg.pause;
	if (pfc_en)
		*pfc_en = cfg.pfc_en;
	return 0;
}

/**
 * rocx_dcb_set_pause() - SET_DCB with the pause field only
 * @core: device with rocx_dcb_supported()
 * @pause: ROCX_PAUSE_* bits; the device refuses any while PFC is on
 *
 * Return: 0 or an errno.
 */
int rocx_dcb_set_pause(struct rocx_core *core, u8 pause)
{
	struct rocx_dcb_cfg cfg;

	rocx_dcb_build_pause(&cfg, pause);
	return rocx_dcb_set(core, &cfg);
}

/**
 * rocx_dcb_dscp_table() - the device's DSCP table for the kernel's app table
 * @masks: per DSCP, the priorities of its DSCP app entries (bit p)
 * @map: receives the table: the lowest such priority, else the device's
 *	default, DSCP >> 3
 *
 * Return: true if @map differs from the default table.
 */
VISIBLE_IF_KUNIT bool rocx_dcb_dscp_table(const u8 *masks, u8 *map)
{
	bool changed = false;
	unsigned int d;

	for (d = 0; d < ROCX_NUM_DSCP; d++) {
		map[d] = masks[d] ? __ffs(masks[d]) : d >> 3;
		changed |= map[d] != d >> 3;
	}
	return changed;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_dcb_dscp_table);

#if IS_ENABLED(CONFIG_DCB)

static struct rocx_core *rocx_dcb_core(struct net_device *netdev)
{
	return ((struct rocx_ndev *)netdev_priv(netdev))->core;
}

static int rocx_dcb_ieee_getets(struct net_device *netdev,
				struct ieee_ets *ets)
{
	struct rocx_dcb_cfg cfg;
	unsigned int i;
	int err;

	err = rocx_dcb_query(rocx_dcb_core(netdev), &cfg);
	if (err)
		return err;
	memset(ets, 0, sizeof(*ets));
	ets->ets_cap = ROCX_NUM_TC;
	for (i = 0; i < ROCX_NUM_PRIO; i++)
		ets->prio_tc[i] = cfg.prio_tc[i];
	for (i = 0; i < ROCX_NUM_TC; i++) {
		ets->tc_tsa[i] = cfg.tc_tsa[i] == ROCX_TSA_STRICT ?
				 IEEE_8021QAZ_TSA_STRICT : IEEE_8021QAZ_TSA_ETS;
		ets->tc_tx_bw[i] = cfg.tc_bw[i];
		ets->tc_rx_bw[i] = cfg.tc_bw[i];
	}
	return 0;
}

static int rocx_dcb_ieee_setets(struct net_device *netdev,
				struct ieee_ets *ets)
{
	struct rocx_core *core = rocx_dcb_core(netdev);
	struct rocx_dcb_cfg cfg;
	const char *why;
	int err;

	err = rocx_dcb_check_ets(ets, &why);
	if (err) {
		netdev_err(netdev, "ETS refused: %s\n", why);
		return err;
	}
	if (!rocx_dcb_has_ets(core)) {
		netdev_err(netdev, "ETS refused: the device does not schedule by ETS yet (no ROCX_CAP2_ETS)\n");
		return -EOPNOTSUPP;
	}
	rocx_dcb_build_ets(&cfg, ets);
	err = rocx_dcb_set(core, &cfg);
	if (!err)
		rocx_dcb_sync(netdev);
	return err;
}

static int rocx_dcb_ieee_getmaxrate(struct net_device *netdev,
				    struct ieee_maxrate *rate)
{
	struct rocx_dcb_cfg cfg;
	unsigned int i;
	int err;

	err = rocx_dcb_query(rocx_dcb_core(netdev), &cfg);
	if (err)
		return err;
	memset(rate, 0, sizeof(*rate));
	for (i = 0; i < ROCX_NUM_TC; i++)
		rate->tc_maxrate[i] = (u64)le32_to_cpu(cfg.tc_maxrate[i]) * 1000;
	return 0;
}

static int rocx_dcb_ieee_setmaxrate(struct net_device *netdev,
				    struct ieee_maxrate *rate)
{
	struct rocx_core *core = rocx_dcb_core(netdev);
	struct rocx_dcb_cfg cfg;

	/* The class rate limits are the ETS scheduler's. */
	if (!rocx_dcb_has_ets(core))
		return -EOPNOTSUPP;
	rocx_dcb_build_maxrate(&cfg, rate);
	return rocx_dcb_set(core, &cfg);
}

static int rocx_dcb_ieee_getpfc(struct net_device *netdev,
				struct ieee_pfc *pfc)
{
	struct rocx_core *core = rocx_dcb_core(netdev);
	struct rocx_dcb_cfg cfg;
	unsigned int p;
	u64 *stats;
	int err, got;

	err = rocx_dcb_query(core, &cfg);
	if (err)
		return err;
	memset(pfc, 0, sizeof(*pfc));
	pfc->pfc_cap = ROCX_NUM_PRIO;
	pfc->pfc_en = cfg.pfc_en;

	stats = kcalloc(ROCX_STAT_NUM, sizeof(*stats), GFP_KERNEL);
	if (!stats)
		return -ENOMEM;
	got = rocx_aq_get_stats(core, stats, ROCX_STAT_NUM);
	if (got < 0) {
		err = got;
		goto out;
	}
	/* Requests are PFC frames sent, indications those received. */
	for (p = 0; p < ROCX_NUM_PRIO; p++) {
		pfc->requests[p] =
			stats[ROCX_STAT_PRIO(p, ROCX_STAT_PRIO_TX_PAUSE)];
		pfc->indications[p] =
			stats[ROCX_STAT_PRIO(p, ROCX_STAT_PRIO_RX_PAUSE)];
	}
out:
	kfree(stats);
	return err;
}

static int rocx_dcb_ieee_setpfc(struct net_device *netdev,
				struct ieee_pfc *pfc)
{
	struct rocx_core *core = rocx_dcb_core(netdev);
	struct rocx_dcb_cfg cfg;
	const char *why;
	int err;

	/* The quanta are the device's (PFC's valid bit selects them too). */
	err = rocx_dcb_query(core, &cfg);
	if (err)
		return err;
	err = rocx_dcb_pause_pfc_check(cfg.pause, pfc->pfc_en, &why);
	if (err) {
		netdev_err(netdev, "PFC refused: link pause is on; %s (ethtool -A %s rx off tx off)\n",
			   why, netdev->name);
		return err;
	}
	rocx_dcb_build_pfc(&cfg, pfc->pfc_en, le16_to_cpu(cfg.pfc_quanta));
	err = rocx_dcb_set(core, &cfg);
	if (err == -EINVAL)
		netdev_err(netdev, "PFC refused by the device: a lossless priority needs xon at least a maximum frame below xoff\n");
	if (!err)
		rocx_dcb_sync(netdev);
	return err;
}

static int rocx_dcb_check_app(struct net_device *netdev, struct dcb_app *app)
{
	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP) {
		netdev_err(netdev, "only DSCP app entries are supported\n");
		return -EOPNOTSUPP;
	}
	if (app->protocol >= ROCX_NUM_DSCP || app->priority >= ROCX_NUM_PRIO)
		return -EINVAL;
	return 0;
}

/* SET_DCB of the device's DSCP table with entry @dscp changed to @prio. */
static int rocx_dcb_set_dscp(struct rocx_core *core, u8 dscp, u8 prio)
{
	struct rocx_dcb_cfg cfg;
	u8 map[ROCX_NUM_DSCP];
	int err;

	err = rocx_dcb_query(core, &cfg);
	if (err)
		return err;
	memcpy(map, cfg.dscp2prio, sizeof(map));
	map[dscp] = prio;
	rocx_dcb_build_dscp2prio(&cfg, map);
	return rocx_dcb_set(core, &cfg);
}

/*
 * The kernel's app table keeps one priority per DSCP, as the device's
 * table does: an entry for a DSCP replaces the one it had.
 */
static int rocx_dcb_ieee_setapp(struct net_device *netdev,
				struct dcb_app *app)
{
	struct rocx_core *core = rocx_dcb_core(netdev);
	struct dcb_app old = *app;
	unsigned long mask;
	unsigned int p;
	int err;

	err = rocx_dcb_check_app(netdev, app);
	if (err)
		return err;
	err = rocx_dcb_set_dscp(core, app->protocol, app->priority);
	if (err)
		return err;
	mask = dcb_ieee_getapp_mask(netdev, app);
	for_each_set_bit(p, &mask, ROCX_NUM_PRIO) {
		if (p == app->priority)
			continue;
		old.priority = p;
		dcb_ieee_delapp(netdev, &old);
	}
	if (mask & BIT(app->priority))
		return 0;
	return dcb_ieee_setapp(netdev, app);
}

static int rocx_dcb_ieee_delapp(struct net_device *netdev,
				struct dcb_app *app)
{
	struct rocx_core *core = rocx_dcb_core(netdev);
	int err;

	err = rocx_dcb_check_app(netdev, app);
	if (err)
		return err;
	if (!(dcb_ieee_getapp_mask(netdev, app) & BIT(app->priority)))
		return -ENOENT;
	/* Back to the device's default: the class selector's precedence. */
	err = rocx_dcb_set_dscp(core, app->protocol, app->protocol >> 3);
	if (err)
		return err;
	return dcb_ieee_delapp(netdev, app);
}

/* dcbnl has app-trust operations since 6.2 (rocx_compat.h). */
static int __maybe_unused rocx_dcb_getapptrust(struct net_device *netdev,
					       u8 *sel, int *n)
{
	struct rocx_dcb_cfg cfg;
	int err;

	err = rocx_dcb_query(rocx_dcb_core(netdev), &cfg);
	if (err)
		return err;
	err = rocx_dcb_trust_sel(cfg.trust, sel);
	if (err < 0)
		return err;
	*n = err;
	return 0;
}

static int __maybe_unused rocx_dcb_setapptrust(struct net_device *netdev,
					       u8 *sel, int n)
{
	struct rocx_dcb_cfg cfg;
	int trust, err;

	trust = rocx_dcb_trust_of(sel, n);
	if (trust < 0) {
		netdev_err(netdev, "app trust must be pcp, dscp, or dscp then pcp\n");
		return trust;
	}
	rocx_dcb_build_trust(&cfg, trust);
	err = rocx_dcb_set(rocx_dcb_core(netdev), &cfg);
	if (!err)
		rocx_dcb_sync(netdev);
	return err;
}

#define ROCX_DCBX_MODE	(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)

/* No firmware agent: the host (lldpad, dcb(8)) manages, IEEE only. */
static u8 rocx_dcb_getdcbx(struct net_device *netdev)
{
	return ROCX_DCBX_MODE;
}

static u8 rocx_dcb_setdcbx(struct net_device *netdev, u8 mode)
{
	return mode == ROCX_DCBX_MODE ? 0 : 1;
}

static const struct dcbnl_rtnl_ops rocx_dcbnl_ops = {
	.ieee_getets		= rocx_dcb_ieee_getets,
	.ieee_setets		= rocx_dcb_ieee_setets,
	.ieee_getmaxrate	= rocx_dcb_ieee_getmaxrate,
	.ieee_setmaxrate	= rocx_dcb_ieee_setmaxrate,
	.ieee_getpfc		= rocx_dcb_ieee_getpfc,
	.ieee_setpfc		= rocx_dcb_ieee_setpfc,
	.ieee_setapp		= rocx_dcb_ieee_setapp,
	.ieee_delapp		= rocx_dcb_ieee_delapp,
#ifdef ROCX_HAVE_DCBNL_APPTRUST
	.dcbnl_getapptrust	= rocx_dcb_getapptrust,
	.dcbnl_setapptrust	= rocx_dcb_setapptrust,
#endif
	.getdcbx		= rocx_dcb_getdcbx,
	.setdcbx		= rocx_dcb_setdcbx,
};

/**
 * rocx_dcb_init() - give the netdev dcbnl operations if the device has DCB
 * @netdev: the port's netdev, not registered yet
 */
void rocx_dcb_init(struct net_device *netdev)
{
	struct rocx_core *core = rocx_dcb_core(netdev);

	if (!rocx_dcb_supported(core))
		return;
	netdev->dcbnl_ops = &rocx_dcbnl_ops;
	/* Older dcbnl accepts a trust order and drops it: say so once. */
	if (!rocx_dcbnl_has_apptrust())
		dev_info(&core->pdev->dev,
			 "no dcbnl app trust before Linux 6.2: dcb apptrust is ignored, the device trusts PCP\n");
}

/**
 * rocx_dcb_restore() - give a reset device the kernel's DSCP app entries
 * @netdev: the port's netdev; rtnl held
 *
 * A function reset returns the device to its defaults.  The kernel's app
 * table outlives it and is what `dcb app show` lists, so the device gets
 * its DSCP entries back; PFC, ETS, trust and pause stay the defaults,
 * which is what the getters then report.
 */
void rocx_dcb_restore(struct net_device *netdev)
{
	struct dcb_ieee_app_dscp_map masks;
	struct rocx_dcb_cfg cfg;
	u8 map[ROCX_NUM_DSCP];
	int err;

	ASSERT_RTNL();
	if (netdev->dcbnl_ops != &rocx_dcbnl_ops)
		return;
	dcb_ieee_getapp_dscp_prio_mask_map(netdev, &masks);
	if (!rocx_dcb_dscp_table(masks.map, map))
		return;
	rocx_dcb_build_dscp2prio(&cfg, map);
	err = rocx_dcb_set(rocx_dcb_core(netdev), &cfg);
	if (err)
		netdev_err(netdev, "could not give the device its DSCP table back after the reset (%d)\n",
			   err);
}

#else

void rocx_dcb_init(struct net_device *netdev)
{
}

void rocx_dcb_restore(struct net_device *netdev)
{
}

#endif /* CONFIG_DCB */
