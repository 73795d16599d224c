/** The sandbox arbiter's words (closing_evidence contains losing_evidence: it is read first). */
import test from 'ava';
import { sandboxAppealOutcome } from '../../domain/sandbox';

test('sandboxAppealOutcome: winning, losing and closing evidence; anything else waits for a human', (t) => {
  t.is(sandboxAppealOutcome('paid: winning_evidence'), 'SATISFIED');
  t.is(sandboxAppealOutcome('paid: losing_evidence'), 'REJECTED');
  t.is(sandboxAppealOutcome('a second look: closing_evidence'), 'CLOSED');
  t.is(sandboxAppealOutcome('a human please'), undefined);
});
