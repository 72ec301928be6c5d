import { describe, expect, it } from "vitest";
import { deviceName } from "./user-agent";

describe("deviceName", () => {
  it("names common browsers and systems, and nothing else", () => {
    expect(
      deviceName(
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36",
      ),
    ).toBe("Chrome on Linux");
    expect(
      deviceName(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
      ),
    ).toBe("Firefox on Windows");
    expect(
      deviceName(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Safari on iOS");
    expect(
      deviceName(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.0.0",
      ),
    ).toBe("Edge on Windows");
    expect(deviceName("<script>alert(1)</script>")).toBe("Unknown browser");
    expect(deviceName(null)).toBe("Unknown browser");
  });
});
