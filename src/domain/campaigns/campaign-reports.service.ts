import type { DbHandle } from '../../db/connect.ts';
import type { CampaignContentCompiler } from './campaign-content.ts';
import { compiledVariantsOf } from './campaign-content.ts';
import type { ContentWarning } from '../content/content-checks.ts';
import { unknownMergeFieldsOf } from '../content/merge-field-warnings.service.ts';
import { unknownMergeFieldWarning } from '../content/merge-fields.ts';
import { InvalidStateError } from '../shared/errors.ts';
import { readJson } from '../shared/json.ts';
import { toPage, type PageRequest } from '../shared/paging.ts';
import { toApiTimestamp } from '../shared/time.ts';
import { abTestOf, setsField, variantContent, variantsOf } from './ab-test.ts';
import { variantCounts } from './ab-test.repo.ts';
import type { ContentLinks } from './campaign.ts';
import { requireCampaign } from './campaign-lookup.ts';
import { readCounters } from './campaign-stats.repo.ts';
import { linkClickTotals } from './engagement.repo.ts';
import { pageRecipients, type RecipientFilter } from './recipient-reads.repo.ts';
import { computeStatistics, rate, type CampaignStatistics } from './statistics.ts';

/** D19: a ledger row as the API shows it; a row a sender holds (or D23 holds for an A/B winner) is still PENDING to the reader. */
function toLedgerEntry(r: { contact_id: number | null; email: string; status: string; attempts: number; last_error: string | null; sent_at: string | Date | null; opened_at: string | Date | null; clicked_at: string | Date | null; unsubscribed_at: string | Date | null; complained_at: string | Date | null }) {
  return {
    contact_id: r.contact_id === null ? null : Number(r.contact_id),
    email: r.email,
    status: r.status === 'CLAIMED' || r.status === 'HELD' ? 'PENDING' : r.status,
    attempts: Number(r.attempts),
    last_error: r.last_error,
    sent_at: toApiTimestamp(r.sent_at),
    opened_at: toApiTimestamp(r.opened_at),
    clicked_at: toApiTimestamp(r.clicked_at),
    unsubscribed_at: toApiTimestamp(r.unsubscribed_at),
    complained_at: toApiTimestamp(r.complained_at),
  };
}

/** What a campaign's pages report: its statistics, recipients, links, content warnings and A/B variants. Nothing here writes. */
export class CampaignReports {
  constructor(
    private readonly handle: DbHandle,
    private readonly contentLinks: ContentLinks,
    private readonly content: CampaignContentCompiler,
  ) {}

  /** Statistics exist only for SENT campaigns (spec); otherwise 409 CAMPAIGN_NOT_SENT (D13). */
  async statistics(accountId: number, id: number): Promise<CampaignStatistics> {
    const campaign = await requireCampaign(this.handle.db, accountId, id);
    if (campaign.status !== 'SENT') throw new InvalidStateError(`statistics are available once the campaign is SENT; it is ${campaign.status}`, 'CAMPAIGN_NOT_SENT');
    return computeStatistics(await readCounters(this.handle.db, id));
  }

  /** D19: the ledger, a recipient per row with its outcome and engagement, by id. */
  async recipients(accountId: number, id: number, filter: RecipientFilter, page: PageRequest) {
    await requireCampaign(this.handle.db, accountId, id);
    const { rows, total } = await pageRecipients(this.handle.db, id, filter, page);
    return toPage('recipients', rows.map(toLedgerEntry), total, page);
  }

  /**
   * D19: each link of the campaign with its clicks and unique clicks, in the order its messages
   * hold them (the list stored when sending started; a draft's from its content, at zero).
   */
  async links(accountId: number, id: number) {
    const campaign = await requireCampaign(this.handle.db, accountId, id);
    const urls = campaign.links === null ? this.contentLinks(campaign) : readJson<string[]>(campaign.links, []);
    const totals = await linkClickTotals(this.handle.db, id);
    return { links: urls.map((url, i) => ({ url, clicks: totals.get(i)?.clicks ?? 0, unique_clicks: totals.get(i)?.unique_clicks ?? 0 })) };
  }

  /**
   * D22: warnings about the content as it would be sent (compiled, its layout included): the base
   * and each variant's own HTML, each warning once. Worked out on the compile thread, in the
   * account's turn and within its time limit: it reads tenant HTML (issue 28 C1). D26.7: with an
   * UNKNOWN_MERGE_FIELD warning per merge field nothing fills, the layout's and the subjects' too.
   */
  async checks(accountId: number, id: number): Promise<{ warnings: ContentWarning[] }> {
    const c = await requireCampaign(this.handle.db, accountId, id);
    const compiledVariants = compiledVariantsOf(c);
    const variants = variantsOf(c) ?? [];
    const htmls = [c.compiled_html ?? c.html, ...variants.map((v, i) => compiledVariants?.[i] ?? (setsField(v.html) ? v.html : null))];
    const mergeSources = [c.subject, c.preheader, ...variants.flatMap((v) => [v.subject ?? null, v.text ?? null])];
    const { warnings, mergeFields } = await this.content.checks(accountId, htmls, c.text, mergeSources);
    const unknown = await unknownMergeFieldsOf(this.handle, accountId, mergeFields, 'campaign');
    return { warnings: [...warnings, ...unknown.map((name) => ({ code: 'UNKNOWN_MERGE_FIELD' as const, message: unknownMergeFieldWarning(name) }))] };
  }

  /**
   * D23: each variant with its content (over the base), its share of the audience, and how its
   * recipients engaged; the winner's figures include the rest of the audience it was sent to.
   * `winner` is null until the test is decided. Before sending starts, the share is the planned
   * one. A campaign without variants has an empty list: it exists, it just has none.
   */
  async variantReport(accountId: number, id: number) {
    const c = await requireCampaign(this.handle.db, accountId, id);
    const variants = variantsOf(c) ?? [];
    const abTest = abTestOf(c);
    const counts = c.ab_phase === null ? [] : await variantCounts(this.handle.db, id);
    const total = Number(c.total_recipients);
    return {
      variants: variants.map((v, index) => {
        const content = variantContent(c, v);
        const n = counts.find((t) => t.variant === index) ?? { recipients: 0, sent: 0, delivered: 0, human_opened: 0, human_clicked: 0 };
        return {
          index,
          subject: content.subject,
          from_name: content.from_name,
          share_percent: c.ab_phase === null ? rate(abTest?.test_percent ?? 0, 100 * variants.length) : rate(n.recipients, total),
          sent: n.sent,
          human_opened: n.human_opened,
          human_clicked: n.human_clicked,
          human_open_rate: rate(n.human_opened, n.delivered),
          human_click_rate: rate(n.human_clicked, n.delivered),
          winner: c.ab_phase === 'DECIDED' ? index === c.ab_winner : null,
        };
      }),
    };
  }
}
