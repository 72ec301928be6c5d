"use client";

import { useState } from "react";

/**
 * Throws while rendering after the click (an error thrown in the click handler itself would
 * bypass React's error boundaries and never show the error page).
 */
export function ThrowOnClick() {
  const [clicked, setClicked] = useState(false);
  if (clicked) throw new Error("Faultline e2e: client-side rendering failed on purpose");
  return (
    <button type="button" onClick={() => setClicked(true)}>
      Throw an error
    </button>
  );
}
