// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for rocx_ib_cc.c: the cc_param files' table against the
 * contract (every field of struct rocx_cc_cfg once, at its offset, with
 * mlx5's name) and the parsing and range checks of a write.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "rocx_ib.h"

/* mlx5's cc_params spellings, and rocx-device.rst's. */
static const char *const rocx_ib_cc_names[] = {
	"np_en", "rp_en", "np_cnp_dscp", "np_cnp_prio",
	"np_min_time_between_cnps", "rp_initial_alpha_value", "rp_dce_tcp_g",
	"rp_dce_tcp_rtt", "rp_gd", "rp_min_dec_fac",
	"rp_rate_to_set_on_first_cnp", "rp_min_rate", "rp_ai_rate",
	"rp_hai_rate", "rp_time_reset", "rp_byte_reset", "rp_threshold",
	"rp_clamp_tgt_rate",
};

static void rocx_ib_cc_table_test(struct kunit *test)
{
	u32 bits = 0;
	unsigned int i, j;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(rocx_ib_cc_names),
			ROCX_IB_CC_NUM_PARAMS);
	for (i = 0; i < ROCX_IB_CC_NUM_PARAMS; i++) {
		const struct rocx_ib_cc_param *p = &rocx_ib_cc_params[i];

		KUNIT_EXPECT_STREQ(test, p->name, rocx_ib_cc_names[i]);
		KUNIT_EXPECT_PTR_EQ(test, rocx_ib_cc_find(rocx_ib_cc_names[i]), p);
		/* One valid bit each, in the field order of the contract. */
		KUNIT_EXPECT_EQ(test, p->valid, BIT(i));
		KUNIT_EXPECT_EQ(test, bits & p->valid, 0);
		bits |= p->valid;
		KUNIT_EXPECT_TRUE(test, p->size == 1 || p->size == 4);
		KUNIT_EXPECT_EQ(test, p->off % p->size, 0);
		KUNIT_EXPECT_LE(test, p->off + p->size,
				offsetof(struct rocx_cc_cfg, rsvd));
		KUNIT_EXPECT_LE(test, p->min, p->max);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, p->name,
					    rocx_ib_cc_params[j].name);
	}
	KUNIT_EXPECT_EQ(test, bits, ROCX_CC_ALL);
	KUNIT_EXPECT_EQ(test, rocx_ib_cc_find("np_en")->off, 4);
	KUNIT_EXPECT_EQ(test, rocx_ib_cc_find("rp_clamp_tgt_rate")->off, 60);
	KUNIT_EXPECT_NULL(test, rocx_ib_cc_find("rp_alpha"));
	KUNIT_EXPECT_NULL(test, rocx_ib_cc_find(""));
}

struct rocx_ib_cc_parse_case {
	const char *desc;
	const char *name;
	const char *in;
	int err;
	u32 val;
};

static const struct rocx_ib_cc_parse_case rocx_ib_cc_parse_cases[] = {
	{ "mask_hex", "np_en", "0xff\n", 0, 0xff },
	{ "mask_dec", "rp_en", "17", 0, 0x11 },
	{ "mask_zero", "rp_en", "0\n", 0, 0 },
	{ "mask_wide", "np_en", "0x100", -ERANGE, 0 },
	{ "dscp_max", "np_cnp_dscp", "63", 0, 63 },
	{ "dscp_over", "np_cnp_dscp", "64", -ERANGE, 0 },
	{ "prio_over", "np_cnp_prio", "8", -ERANGE, 0 },
	{ "cnp_time_zero", "np_min_time_between_cnps", "0", 0, 0 },
	{ "cnp_time_over", "np_min_time_between_cnps", "10000001", -ERANGE, 0 },
	{ "alpha_max", "rp_initial_alpha_value", "1023", 0, 1023 },
	{ "alpha_over", "rp_initial_alpha_value", "1024", -ERANGE, 0 },
	{ "g_over", "rp_dce_tcp_g", "1024", -ERANGE, 0 },
	{ "rtt_zero", "rp_dce_tcp_rtt", "0", -ERANGE, 0 },
	{ "gd_over", "rp_gd", "16", -ERANGE, 0 },
	{ "dec_fac_zero", "rp_min_dec_fac", "0", -ERANGE, 0 },
	{ "dec_fac_over", "rp_min_dec_fac", "101", -ERANGE, 0 },
	{ "first_rate_off", "rp_rate_to_set_on_first_cnp", "0", 0, 0 },
	{ "min_rate_zero", "rp_min_rate", "0", -ERANGE, 0 },
	{ "min_rate_speed", "rp_min_rate", "400000", 0, 400000 },
	{ "min_rate_over", "rp_min_rate", "400001", -ERANGE, 0 },
	{ "ai_rate", "rp_ai_rate", "5\n", 0, 5 },
	{ "hai_over", "rp_hai_rate", "400001", -ERANGE, 0 },
	{ "time_reset", "rp_time_reset", "300", 0, 300 },
	{ "byte_reset_off", "rp_byte_reset", "0", 0, 0 },
	{ "byte_reset_max", "rp_byte_reset", "1073741824", 0, 1U << 30 },
	{ "byte_reset_over", "rp_byte_reset", "1073741825", -ERANGE, 0 },
	{ "threshold_zero", "rp_threshold", "0", -ERANGE, 0 },
	{ "threshold_over", "rp_threshold", "32", -ERANGE, 0 },
	{ "clamp_on", "rp_clamp_tgt_rate", "1", 0, 1 },
	{ "clamp_two", "rp_clamp_tgt_rate", "2", -ERANGE, 0 },
	{ "overflow", "rp_ai_rate", "99999999999", -ERANGE, 0 },
	{ "negative", "rp_ai_rate", "-1", -EINVAL, 0 },
	{ "word", "rp_gd", "eleven", -EINVAL, 0 },
	{ "empty", "rp_gd", "", -EINVAL, 0 },
	{ "trailing", "rp_gd", "11 ", -EINVAL, 0 },
	{ "two_numbers", "rp_gd", "1 1", -EINVAL, 0 },
};

KUNIT_ARRAY_PARAM_DESC(rocx_ib_cc_parse, rocx_ib_cc_parse_cases, desc);

/*
 * A write becomes SET_CC with its field and valid bit alone, every other
 * byte zero (a reserved byte the device would refuse), or is refused.
 */
static void rocx_ib_cc_parse_test(struct kunit *test)
{
	const struct rocx_ib_cc_parse_case *c = test->param_value;
	const struct rocx_ib_cc_param *p = rocx_ib_cc_find(c->name);
	struct rocx_cc_cfg cfg, want;
	u8 *field;

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(&cfg, 0x5a, sizeof(cfg));
	KUNIT_ASSERT_EQ(test, rocx_ib_cc_parse(p, c->in, 400000, &cfg), c->err);
	if (c->err)
		return;
	memset(&want, 0, sizeof(want));
	want.valid = cpu_to_le32(p->valid);
	field = (u8 *)&want + p->off;
	if (p->size == 1)
		*field = c->val;
	else
		*(__le32 *)field = cpu_to_le32(c->val);
	KUNIT_EXPECT_MEMEQ(test, &cfg, &want, sizeof(cfg));
	KUNIT_EXPECT_EQ(test, rocx_ib_cc_value(p, &cfg), c->val);
}

/* The rates' ceiling is the device's max_speed, not a constant. */
static void rocx_ib_cc_max_speed_test(struct kunit *test)
{
	const struct rocx_ib_cc_param *p = rocx_ib_cc_find("rp_ai_rate");
	struct rocx_cc_cfg cfg;

	KUNIT_EXPECT_EQ(test, rocx_ib_cc_parse(p, "1000", 1000, &cfg), 0);
	KUNIT_EXPECT_EQ(test, rocx_ib_cc_parse(p, "1001", 1000, &cfg), -ERANGE);
	p = rocx_ib_cc_find("rp_gd");
	KUNIT_EXPECT_EQ(test, rocx_ib_cc_parse(p, "15", 1, &cfg), 0);
}

/* QUERY_CC as the device writes it, read back field by field. */
static void rocx_ib_cc_value_test(struct kunit *test)
{
	struct rocx_cc_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.np_en = 0xf0;
	cfg.np_cnp_prio = 6;
	cfg.rp_time_reset = cpu_to_le32(300);
	cfg.rp_byte_reset = cpu_to_le32(32767);
	KUNIT_EXPECT_EQ(test, rocx_ib_cc_value(rocx_ib_cc_find("np_en"), &cfg),
			0xf0);
	KUNIT_EXPECT_EQ(test,
			rocx_ib_cc_value(rocx_ib_cc_find("np_cnp_prio"), &cfg),
			6);
	KUNIT_EXPECT_EQ(test,
			rocx_ib_cc_value(rocx_ib_cc_find("rp_time_reset"),
					 &cfg), 300);
	KUNIT_EXPECT_EQ(test,
			rocx_ib_cc_value(rocx_ib_cc_find("rp_byte_reset"),
					 &cfg), 32767);
	KUNIT_EXPECT_EQ(test, rocx_ib_cc_value(rocx_ib_cc_find("rp_gd"), &cfg),
			0);
}

static struct kunit_case rocx_ib_cc_cases[] = {
	KUNIT_CASE(rocx_ib_cc_table_test),
	KUNIT_CASE_PARAM(rocx_ib_cc_parse_test, rocx_ib_cc_parse_gen_params),
	KUNIT_CASE(rocx_ib_cc_max_speed_test),
	KUNIT_CASE(rocx_ib_cc_value_test),
	{}
};

static struct kunit_suite rocx_ib_cc_suite = {
	.name = "rocx_ib_cc",
	.test_cases = rocx_ib_cc_cases,
};

kunit_test_suite(rocx_ib_cc_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for rocx_ib's congestion control files");
MODULE_LICENSE("Dual BSD/GPL");
