// Vite's `?url` imports: the built URL of an asset (here, quickjs-ng's .wasm file).
declare module '*?url' {
  const url: string;
  export default url;
}
