/**
 * D11: a custom field's key starts with a letter and holds letters, digits and `_`, at most 64.
 * The one copy of the rule: contacts, CSV columns and segment filters check keys with it, and a
 * key that passed it is safe inside a JSON path. Pure, so the dashboard's bundle imports it too.
 */
export const CUSTOM_FIELD_KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
