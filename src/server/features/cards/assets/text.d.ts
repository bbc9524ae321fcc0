// Stylesheets imported as text (`with { type: "text" }`): Bun inlines the file's contents. Each script has a
// .d.ts of its own beside it, since TypeScript resolves a relative .js import to the file, never to a wildcard.
declare module "*.css" {
  const text: string;
  export default text;
}
