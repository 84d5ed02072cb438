import { Document, isScalar, isSeq, visit } from 'yaml';

/** Lists of short scalars (tags, modes, domains) read best on one line, as the hand-written blueprints have them. */
const FLOW_LIMIT = 80;

/**
 * The blueprint's YAML text: keys in the order given, a banner naming the card
 * it came from, short scalar lists in flow style, no line folding. The same
 * data and card name always give the same bytes.
 */
export function formatBlueprint(data: Record<string, unknown>, slug: string, cardName: string): string {
  const doc = new Document(data);
  visit(doc, {
    Seq(_, node) {
      if (node.items.length === 0 || node.items.every((item) => isScalar(item) && String(item.value).length <= 40 && !String(item.value).includes('\n'))) {
        const width = node.items.reduce((sum: number, item: unknown) => sum + String(isScalar(item) ? item.value : '').length + 2, 0);
        if (width <= FLOW_LIMIT) node.flow = true;
      }
    },
  });
  // The perception list is the one thing import cannot know: say so where the author looks.
  const perception = doc.getIn(['persona', 'perception', 'domains'], true);
  if (isSeq(perception)) perception.comment = ' perception-domain slugs this agent watches; fill in';
  const rule = '─'.repeat(77);
  doc.commentBefore = [
    ` ${rule}`,
    `  ${slug}: imported from ${cardName} by \`knoc import\``,
    ` ${rule}`,
    ' Review before publishing: the perception domains, goals, boundaries,',
    ' lifecycle and ownership are not part of an agent card.',
  ].join('\n');
  return doc.toString({ lineWidth: 0, minContentWidth: 0, flowCollectionPadding: false });
}
