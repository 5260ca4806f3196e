// Money typed on the tablet is read into integer cents exactly, and shown as dollars.
import { test } from "node:test";
import assert from "node:assert/strict";
import { toCents, money } from "../../static/live/money.js";

test("dollars typed with or without cents, a dollar sign and thousands separators are exact cents", () => {
  const cases = [["12", 1200], ["12.5", 1250], ["12.50", 1250], ["0.07", 7], ["$1,200", 120000], [" 25 ", 2500], ["1,234.56", 123456], [5, 500]];
  for (const [typed, cents] of cases) assert.equal(toCents(typed), cents, `toCents(${JSON.stringify(typed)})`);
});

test("amounts that floating point would round wrongly are still exact", () => {
  // 0.29 * 100 is 28.999999999999996 and 1.15 * 100 is 114.99999999999999 in floating point.
  assert.equal(toCents("0.29"), 29);
  assert.equal(toCents("1.15"), 115);
  assert.equal(toCents("4.35"), 435);
  assert.equal(toCents("9007199254740.99"), 900719925474099);
});

test("what is not a sum of money is null: a sign, a third decimal, letters, nothing", () => {
  for (const typed of ["", "  ", "-5", "+5", "1.234", "1.", ".5", "abc", "12a", "1e3", "5 5", "$", null, undefined]) {
    assert.equal(toCents(typed), null, `toCents(${JSON.stringify(typed)})`);
  }
});

test("cents are shown as dollars with two decimals, a thousands separator and a true minus sign", () => {
  assert.equal(money(0), "$0.00");
  assert.equal(money(7), "$0.07");
  assert.equal(money(123456), "$1,234.56");
  assert.equal(money(-2550), "−$25.50");
  assert.equal(money(null), "—");
  assert.equal(money(undefined), "—");
});

test("what money() shows, toCents() reads back", () => {
  for (const cents of [0, 1, 99, 100, 1050, 123456, 100000000]) assert.equal(toCents(money(cents)), cents);
});
