// Money on the screens: integer cents throughout, shown as dollars. No floating point
// touches an amount: a typed "12.5" is read digit by digit into 1250.

// Integer cents, shown as dollars: $1,234.50 (a minus sign, not a hyphen, for a debit).
export function money(cents) {
  if (cents === null || cents === undefined) return "—";
  const sign = cents < 0 ? "−" : "";
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100).toLocaleString("en-US");
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, "0")}`;
}

// "12", "12.5", "12.50", "$1,200" -> cents, exactly; null if the text is not a sum of money
// (a sign, a third decimal, letters, an empty field).
export function toCents(text) {
  const m = String(text).trim().replace(/[$,]/g, "").match(/^(\d+)(?:\.(\d{1,2}))?$/);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] || "0").padEnd(2, "0"));
}
