// Lists, after a run, the tests that took more than a tenth of their timeout: the ones a busy
// machine could push over it. It never fails a run (that would make time a cause of failure
// again); it tells which test to make faster or give a budget of its own (docs/testing.md).
import type { Reporter, TestCase } from 'vitest/node';

const SHARE = 0.1;

export default class BudgetReporter implements Reporter {
  private readonly over: Array<{ name: string; ms: number; timeout: number }> = [];

  onTestCaseResult(test: TestCase) {
    const ms = test.diagnostic()?.duration ?? 0;
    // The test's own timeout (its project's, or the one written beside it): vitest keeps it on
    // the runner's task, which its public TestCase type does not show.
    const timeout = (test as unknown as { task: { timeout: number } }).task.timeout;
    if (timeout > 0 && ms > timeout * SHARE) {
      this.over.push({
        name: `${test.module.moduleId.split('/test/').pop()} > ${test.fullName}`,
        ms,
        timeout,
      });
    }
  }

  onTestRunEnd() {
    if (this.over.length === 0) return;
    console.log(`\nOver a tenth of their timeout (make them faster, or give them a budget of their own):`);
    for (const t of this.over.sort((a, b) => b.ms / b.timeout - a.ms / a.timeout)) {
      console.log(`  ${(t.ms / 1000).toFixed(1)} s of ${t.timeout / 1000} s  ${t.name}`);
    }
  }
}
