/**
 * Long attacker-controlled values (messages, payload fields) shown clipped with a native
 * disclosure to expand: no script needed, and the text stays text.
 */
export function TruncatedText({ text, max = 300 }: { text: string; max?: number }) {
  if (text.length <= max) return <span className="break-words whitespace-pre-wrap">{text}</span>;
  return (
    <details className="group">
      <summary className="cursor-pointer list-none break-words whitespace-pre-wrap">
        {text.slice(0, max)}
        <span className="text-muted group-open:hidden">… show all ({text.length} chars)</span>
      </summary>
      <span className="break-words whitespace-pre-wrap">{text.slice(max)}</span>
    </details>
  );
}
