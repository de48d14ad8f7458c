package dev.baton.operator.leadergroup;

/**
 * A group's lease as the observe step found it: a value, with no connection in it (the act step is
 * handed the store it writes).
 *
 * @param holder what Redis holds, classified
 * @param fresh the renewer renewed the lease this operator holds moments ago: nothing was sent, and
 *     keeping it needs no call either
 * @param term the term counter, or -1 when not read
 */
record LeaseView(Election.Holder holder, boolean fresh, long term) {}
