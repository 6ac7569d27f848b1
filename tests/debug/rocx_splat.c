// SPDX-License-Identifier: GPL-2.0
/*
 * rocx_splat - a deliberately broken module, the negative test of the debug
 * guest kernel's checks (tests/e2e/host/splat_selftest.sh).  Loading it
 * makes the kernel report each kind of bug those checks must catch, one
 * after the other, each after a "rocx_splat: <kind>" line so that the host
 * can judge every report on its own.  Never load it anywhere else.
 */
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static DEFINE_MUTEX(splat_a);
static DEFINE_MUTEX(splat_b);
static DEFINE_SPINLOCK(splat_lock);
/* Where the leaked object's address is forgotten. */
static void *splat_leaked;

/* Taking a then b, later b then a: a circular dependency to lockdep. */
static void splat_lockdep(void)
{
	mutex_lock(&splat_a);
	mutex_lock(&splat_b);
	mutex_unlock(&splat_b);
	mutex_unlock(&splat_a);

	mutex_lock(&splat_b);
	mutex_lock(&splat_a);
	mutex_unlock(&splat_a);
	mutex_unlock(&splat_b);
}

/* A GFP_KERNEL allocation may sleep: not under a spinlock. */
static void splat_atomic_sleep(void)
{
	void *p;

	spin_lock(&splat_lock);
	p = kmalloc(16, GFP_KERNEL);
	spin_unlock(&splat_lock);
	kfree(p);
}

static void splat_use_after_free(void)
{
	char *p = kmalloc(32, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	pr_info("rocx_splat: read %d\n", READ_ONCE(p[3]));
}

static void splat_refcount(void)
{
	refcount_t r = REFCOUNT_INIT(1);

	if (refcount_dec_and_test(&r))
		refcount_dec(&r);
}

static void splat_list(void)
{
	LIST_HEAD(head);
	struct list_head e;

	list_add(&e, &head);
	list_del(&e);
	list_del(&e);
}

static void splat_leak(void)
{
	splat_leaked = kmalloc(128, GFP_KERNEL);
	splat_leaked = NULL;
}

static int __init rocx_splat_init(void)
{
	/*
	 * lockdep first: a KASAN report taints the kernel and switches lock
	 * debugging off.
	 */
	pr_warn("rocx_splat: lockdep\n");
	splat_lockdep();
	pr_warn("rocx_splat: atomic-sleep\n");
	splat_atomic_sleep();
	pr_warn("rocx_splat: kasan\n");
	splat_use_after_free();
	pr_warn("rocx_splat: refcount\n");
	splat_refcount();
	pr_warn("rocx_splat: list\n");
	splat_list();
	pr_warn("rocx_splat: leak\n");
	splat_leak();
	pr_warn("rocx_splat: done\n");
	return 0;
}

static void __exit rocx_splat_exit(void)
{
}

module_init(rocx_splat_init);
module_exit(rocx_splat_exit);
MODULE_DESCRIPTION("Negative test of the rocx debug kernel's checks");
MODULE_LICENSE("GPL");
