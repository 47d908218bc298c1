# SPDX-License-Identifier: MIT
"""Checking and reporting for the lab drivers: every check counts, a
failed one prints one line, and report() prints the closing line that
tests/unit/run.sh and CI read:

    NAME: N passed, M failed[, K skipped]
"""


class Checker:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def check(self, subject, what, cond, detail=""):
        """subject: a run (its describe()) or a name."""
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            name = subject.describe() if hasattr(subject, "describe") else subject
            print("FAIL %s: %s %s" % (name, what, detail))
        return cond

    def fail(self, message):
        """A failure that is not one check's: the lab itself, say."""
        self.failed += 1
        print("FAIL %s" % message)

    def skip(self, what, why):
        self.skipped += 1
        print("skip %s: %s" % (what, why))

    def report(self, name):
        """Prints the closing line; returns the exit status."""
        line = "%s: %d passed, %d failed" % (name, self.passed, self.failed)
        if self.skipped:
            line += ", %d skipped" % self.skipped
        print(line)
        return 1 if self.failed else 0
