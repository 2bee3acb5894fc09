// The document sits next to this page (`../openapi.json`, `?lang=zh-CN` for its prose in Chinese),
// so the page works under any BASE_PATH. Calls are sent from here only as "Try it" signs them
// (try-it.js: in the browser, with an app kept in the page's memory); nothing is fetched from other
// hosts (no online validator).
function reference(lang, requestInterceptor) {
  return SwaggerUIBundle({
    url: new URL(lang === 'zh-CN' ? '../openapi.json?lang=zh-CN' : '../openapi.json', window.location.href).href,
    dom_id: '#reference',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    supportedSubmitMethods: requestInterceptor ? ['get', 'post', 'put', 'delete', 'patch'] : [],
    requestInterceptor: requestInterceptor || ((req) => req),
    validatorUrl: null,
  });
}
if (window.KitTryIt) window.KitTryIt.start((lang, requestInterceptor) => (window.ui = reference(lang, requestInterceptor)));
else window.ui = reference('en', null);
