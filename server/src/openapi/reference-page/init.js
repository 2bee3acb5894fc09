// The document sits next to this page (`../openapi.json`), so the page works under any BASE_PATH.
// Requests are not sent from here (signed calls need the AppSecret), and nothing is fetched from
// other hosts (no online validator).
window.ui = SwaggerUIBundle({
  url: new URL('../openapi.json', window.location.href).href,
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  supportedSubmitMethods: [],
  validatorUrl: null,
});
