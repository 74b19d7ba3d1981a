/**
 * Liquid that costs a sender what a hostile template would (issue 14 H3, H4, H5), for contacts
 * with a custom field set, so one campaign can hold heavy and plain messages.
 */

/**
 * For contacts with `spin`: runs for as long as it is let, writing nothing and allocating nothing
 * per step (a triple loop over 1,000 characters: a billion steps), so it always ends at the
 * message's render budget.
 */
export const SPIN = `{% if spin %}{% assign xs = "${'x'.repeat(1000)}" | split: "" %}{% for a in xs %}{% for b in xs %}{% for c in xs %}{% endfor %}{% endfor %}{% endfor %}{% endif %}`;

/** For contacts with `bomb`: under 2 KB of template writing 50 MB (10 KB captured, written 5,000 times). */
export const BOMB = '{% if bomb %}{% capture s %}{% for i in (1..1000) %}0123456789{% endfor %}{% endcapture %}{% for i in (1..5000) %}{{ s }}{% endfor %}{% endif %}';
