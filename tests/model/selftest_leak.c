/*
 * The model runner's negative test (run.sh --selftest): a binary that
 * reports every case passed and then leaks, as a model test with a leak
 * in its teardown would.  LeakSanitizer reports it after main() returns,
 * so only the runner's reading of the exit status can catch it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* volatile: the compiler must not see that the block is never freed. */
static void *volatile lost;

int main(void)
{
    lost = malloc(64);
    memset(lost, 0, 64);
    lost = NULL;
    printf("host: 1 passed, 0 failed\n");
    /*
     * A summary already written, as it is when output is line-buffered
     * or flushed per case: LeakSanitizer ends the process without
     * flushing stdio, so an unflushed summary would be lost and the
     * binary caught for that alone, which proves nothing of the rule.
     */
    fflush(stdout);
    return 0;
}
