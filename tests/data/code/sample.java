package demo;

import java.util.ArrayList;
import java.util.List;

/** A small ledger, for the Code tests. */
public class Ledger {
    private final List<Long> entries = new ArrayList<>();

    public Ledger() {
    }

    /** Adds an entry. */
    @Deprecated
    public void add(long amount) {
        if (amount == 0) {
            return;
        }
        entries.add(amount);
    }

    public long total() {
        long sum = 0;
        for (long e : entries) {
            sum += e;
        }
        return sum;
    }

    interface Listener {
        void changed(long total);
    }

    enum Kind { CREDIT, DEBIT }
}
