import { describe, expect, it } from "vitest";
import { passwordProblem } from "./password-policy";

describe("passwordProblem", () => {
  it("refuses the most common passwords of 10 characters or more, in any case", () => {
    for (const common of ["1234567890", "qwertyuiop", "QwertyUIOP", "1q2w3e4r5t"])
      expect(passwordProblem(common, "ada@example.com"), common).toBe("common_password");
  });

  it("refuses a password that contains the email's name part", () => {
    expect(passwordProblem("Lovelace-rules-2026", "lovelace@example.com")).toBe(
      "password_contains_email",
    );
    expect(passwordProblem("x lovelace@example.com x", "lovelace@example.com")).toBe(
      "password_contains_email",
    );
  });

  it("accepts an uncommon password, and ignores a name part too short to matter", () => {
    expect(passwordProblem("correct horse battery", "ada@example.com")).toBeUndefined();
    expect(passwordProblem("al-gebra is lovely 7", "al@example.com")).toBeUndefined();
  });
});
