// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rocx_ib: congestion control parameters (rocx-device.rst, "ECN and
 * congestion control"), in one place under the ib port's sysfs:
 *
 *   /sys/class/infiniband/rocxN/ports/1/cc_param/<name>
 *
 * One file per field of struct rocx_cc_cfg, named as mlx5's cc_params:
 * np_en and rp_en (a bit per priority, read as 0xNN, written in any base
 * kstrtou32() takes), np_cnp_dscp, np_cnp_prio, np_min_time_between_cnps
 * and the reaction point's rp_* parameters.  The device holds the only
 * copy: reading a file asks it (QUERY_CC) and writing one sends SET_CC
 * with that field alone, so what a read returns is what the device uses.
 * The files exist when the device has ROCX_CAP2_DCQCN.
 *
 * Writes are checked against the ranges of rocx-device.rst before they
 * reach the device (-EINVAL for what is not a number, -ERANGE for a
 * number outside the field's range); the device checks them again.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/kstrtox.h>
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>

#include "rocx_ib.h"

/* A rocx_ib_cc_param.max that stands for IDENTIFY.max_speed. */
#define ROCX_IB_CC_MAX_SPEED	U32_MAX

#define ROCX_IB_CC_U8(_name, _bit, _max, _hex) {			\
	.name = #_name, .valid = ROCX_CC_##_bit,			\
	.off = offsetof(struct rocx_cc_cfg, _name), .size = 1,		\
	.min = 0, .max = (_max), .hex = (_hex) }
#define ROCX_IB_CC_U32(_name, _bit, _min, _max) {			\
	.name = #_name, .valid = ROCX_CC_##_bit,			\
	.off = offsetof(struct rocx_cc_cfg, _name), .size = 4,		\
	.min = (_min), .max = (_max) }

VISIBLE_IF_KUNIT const struct rocx_ib_cc_param rocx_ib_cc_params[] = {
	ROCX_IB_CC_U8(np_en, NP_EN, 0xff, true),
	ROCX_IB_CC_U8(rp_en, RP_EN, 0xff, true),
	ROCX_IB_CC_U8(np_cnp_dscp, NP_CNP_DSCP, 63, false),
	ROCX_IB_CC_U8(np_cnp_prio, NP_CNP_PRIO, 7, false),
	ROCX_IB_CC_U32(np_min_time_between_cnps, NP_MIN_TIME, 0,
		       ROCX_CC_TIME_MAX_US),
	ROCX_IB_CC_U32(rp_initial_alpha_value, RP_INITIAL_ALPHA, 0,
		       ROCX_CC_ALPHA_MAX),
	ROCX_IB_CC_U32(rp_dce_tcp_g, RP_G, 0, ROCX_CC_ALPHA_MAX),
	ROCX_IB_CC_U32(rp_dce_tcp_rtt, RP_RTT, 1, ROCX_CC_TIME_MAX_US),
	ROCX_IB_CC_U32(rp_gd, RP_GD, 0, ROCX_CC_GD_MAX),
	ROCX_IB_CC_U32(rp_min_dec_fac, RP_MIN_DEC_FAC, 1, 100),
	ROCX_IB_CC_U32(rp_rate_to_set_on_first_cnp, RP_FIRST_CNP_RATE, 0,
		       ROCX_IB_CC_MAX_SPEED),
	ROCX_IB_CC_U32(rp_min_rate, RP_MIN_RATE, 1, ROCX_IB_CC_MAX_SPEED),
	ROCX_IB_CC_U32(rp_ai_rate, RP_AI_RATE, 0, ROCX_IB_CC_MAX_SPEED),
	ROCX_IB_CC_U32(rp_hai_rate, RP_HAI_RATE, 0, ROCX_IB_CC_MAX_SPEED),
	ROCX_IB_CC_U32(rp_time_reset, RP_TIME_RESET, 1, ROCX_CC_TIME_MAX_US),
	ROCX_IB_CC_U32(rp_byte_reset, RP_BYTE_RESET, 0,
		       ROCX_CC_BYTE_RESET_MAX),
	ROCX_IB_CC_U32(rp_threshold, RP_THRESHOLD, 1, ROCX_CC_THRESHOLD_MAX),
	ROCX_IB_CC_U32(rp_clamp_tgt_rate, RP_CLAMP_TGT_RATE, 0, 1),
};
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_cc_params);
static_assert(ARRAY_SIZE(rocx_ib_cc_params) == ROCX_IB_CC_NUM_PARAMS);

/**
 * rocx_ib_cc_find() - the parameter a cc_param file is named after
 * @name: the file's name
 *
 * Return: its entry of rocx_ib_cc_params[], or NULL.
 */
VISIBLE_IF_KUNIT const struct rocx_ib_cc_param *rocx_ib_cc_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rocx_ib_cc_params); i++)
		if (!strcmp(rocx_ib_cc_params[i].name, name))
			return &rocx_ib_cc_params[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_cc_find);

/**
 * rocx_ib_cc_parse() - a value written to a cc_param file, as SET_CC
 * @p: the file's parameter
 * @buf: what was written (a trailing newline is allowed)
 * @max_speed: IDENTIFY.max_speed, the ceiling of the rates
 * @cfg: filled with the value and its valid bit alone
 *
 * Return: 0; -EINVAL if @buf is not a number; -ERANGE if it is outside
 * the parameter's range.
 */
VISIBLE_IF_KUNIT int rocx_ib_cc_parse(const struct rocx_ib_cc_param *p,
				      const char *buf, u32 max_speed,
				      struct rocx_cc_cfg *cfg)
{
	u32 max = p->max == ROCX_IB_CC_MAX_SPEED ? max_speed : p->max;
	u8 *field = (u8 *)cfg + p->off;
	u32 v;
	int err;

	err = kstrtou32(buf, 0, &v);
	if (err == -ERANGE)
		return -ERANGE;
	if (err)
		return -EINVAL;
	if (v < p->min || v > max)
		return -ERANGE;
	memset(cfg, 0, sizeof(*cfg));
	cfg->valid = cpu_to_le32(p->valid);
	if (p->size == 1)
		*field = v;
	else
		*(__le32 *)field = cpu_to_le32(v);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_cc_parse);

/**
 * rocx_ib_cc_value() - the parameter's value in a QUERY_CC result
 * @p: the parameter
 * @cfg: what the device wrote
 */
VISIBLE_IF_KUNIT u32 rocx_ib_cc_value(const struct rocx_ib_cc_param *p,
				      const struct rocx_cc_cfg *cfg)
{
	const u8 *field = (const u8 *)cfg + p->off;

	if (p->size == 1)
		return *field;
	return le32_to_cpu(*(const __le32 *)field);
}
EXPORT_SYMBOL_IF_KUNIT(rocx_ib_cc_value);

/* SET_CC or QUERY_CC through a DMA copy of @cfg. */
static int rocx_ib_cc_cmd(struct rocx_ib_dev *dev, u16 opcode,
			  struct rocx_cc_cfg *cfg)
{
	struct device *dma_dev = &dev->pdev->dev;
	struct rocx_cc_cfg *buf;
	union rocx_aq_cmd cmd;
	dma_addr_t dma;
	int err;

	buf = dma_alloc_coherent(dma_dev, sizeof(*buf), &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (opcode == ROCX_AQ_OP_SET_CC)
		memcpy(buf, cfg, sizeof(*buf));
	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.opcode = cpu_to_le16(opcode);
	cmd.cfg_buf.addr = cpu_to_le64(dma);
	cmd.cfg_buf.len = cpu_to_le32(sizeof(*buf));
	err = rocx_admin_exec(dev->core, &cmd, NULL);
	if (!err && opcode == ROCX_AQ_OP_QUERY_CC)
		memcpy(cfg, buf, sizeof(*cfg));
	dma_free_coherent(dma_dev, sizeof(*buf), buf, dma);
	return err;
}

static ssize_t rocx_ib_cc_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *attr, char *buf)
{
	const struct rocx_ib_cc_param *p = rocx_ib_cc_find(attr->attr.name);
	struct rocx_cc_cfg cfg;
	int err;

	if (!p)
		return -EINVAL;
	err = rocx_ib_cc_cmd(to_rocx_ib_dev(ibdev), ROCX_AQ_OP_QUERY_CC, &cfg);
	if (err)
		return err;
	return sysfs_emit(buf, p->hex ? "0x%02x\n" : "%u\n",
			  rocx_ib_cc_value(p, &cfg));
}

static ssize_t rocx_ib_cc_store(struct ib_device *ibdev, u32 port_num,
				struct ib_port_attribute *attr,
				const char *buf, size_t count)
{
	const struct rocx_ib_cc_param *p = rocx_ib_cc_find(attr->attr.name);
	struct rocx_ib_dev *dev = to_rocx_ib_dev(ibdev);
	struct rocx_cc_cfg cfg;
	int err;

	if (!p)
		return -EINVAL;
	err = rocx_ib_cc_parse(p, buf, le32_to_cpu(dev->id->max_speed), &cfg);
	if (!err)
		err = rocx_ib_cc_cmd(dev, ROCX_AQ_OP_SET_CC, &cfg);
	return err ? err : count;
}

/* Each read is an admin command: root's alone, as mlx5's cc_params. */
#define ROCX_IB_CC_ATTR(_name)						\
	static struct ib_port_attribute rocx_ib_cc_attr_##_name =	\
		__ATTR(_name, 0600, rocx_ib_cc_show, rocx_ib_cc_store)

ROCX_IB_CC_ATTR(np_en);
ROCX_IB_CC_ATTR(rp_en);
ROCX_IB_CC_ATTR(np_cnp_dscp);
ROCX_IB_CC_ATTR(np_cnp_prio);
ROCX_IB_CC_ATTR(np_min_time_between_cnps);
ROCX_IB_CC_ATTR(rp_initial_alpha_value);
ROCX_IB_CC_ATTR(rp_dce_tcp_g);
ROCX_IB_CC_ATTR(rp_dce_tcp_rtt);
ROCX_IB_CC_ATTR(rp_gd);
ROCX_IB_CC_ATTR(rp_min_dec_fac);
ROCX_IB_CC_ATTR(rp_rate_to_set_on_first_cnp);
ROCX_IB_CC_ATTR(rp_min_rate);
ROCX_IB_CC_ATTR(rp_ai_rate);
ROCX_IB_CC_ATTR(rp_hai_rate);
ROCX_IB_CC_ATTR(rp_time_reset);
ROCX_IB_CC_ATTR(rp_byte_reset);
ROCX_IB_CC_ATTR(rp_threshold);
ROCX_IB_CC_ATTR(rp_clamp_tgt_rate);

static struct attribute *rocx_ib_cc_attrs[] = {
	&rocx_ib_cc_attr_np_en.attr,
	&rocx_ib_cc_attr_rp_en.attr,
	&rocx_ib_cc_attr_np_cnp_dscp.attr,
	&rocx_ib_cc_attr_np_cnp_prio.attr,
	&rocx_ib_cc_attr_np_min_time_between_cnps.attr,
	&rocx_ib_cc_attr_rp_initial_alpha_value.attr,
	&rocx_ib_cc_attr_rp_dce_tcp_g.attr,
	&rocx_ib_cc_attr_rp_dce_tcp_rtt.attr,
	&rocx_ib_cc_attr_rp_gd.attr,
	&rocx_ib_cc_attr_rp_min_dec_fac.attr,
	&rocx_ib_cc_attr_rp_rate_to_set_on_first_cnp.attr,
	&rocx_ib_cc_attr_rp_min_rate.attr,
	&rocx_ib_cc_attr_rp_ai_rate.attr,
	&rocx_ib_cc_attr_rp_hai_rate.attr,
	&rocx_ib_cc_attr_rp_time_reset.attr,
	&rocx_ib_cc_attr_rp_byte_reset.attr,
	&rocx_ib_cc_attr_rp_threshold.attr,
	&rocx_ib_cc_attr_rp_clamp_tgt_rate.attr,
	NULL
};

static_assert(ARRAY_SIZE(rocx_ib_cc_attrs) == ROCX_IB_CC_NUM_PARAMS + 1);

static const struct attribute_group rocx_ib_cc_group = {
	.name = "cc_param",
	.attrs = rocx_ib_cc_attrs,
};

static const struct attribute_group *rocx_ib_cc_groups[] = {
	&rocx_ib_cc_group,
	NULL
};

/* Set on top of the device's ops when it has ROCX_CAP2_DCQCN. */
const struct ib_device_ops rocx_ib_cc_ops = {
	.port_groups = rocx_ib_cc_groups,
};
