// Tailwind 4 runs as a PostCSS plugin inside `next build`.
export default { plugins: { "@tailwindcss/postcss": {} } };
