"""Two SGD-with-momentum steps of the MLP example, compiled as a training step
by mpc, against the same steps in float64 NumPy: forward, cross-entropy,
backward, momentum and update. Parameters and momentum buffers go in and out
as safetensors.

usage: mlp_train_step.py MPC BUNDLE WORKDIR [sgd|adamw]

sgd: lr 0.1, momentum 0.9 (the example's optimizer); adamw: lr 0.01,
weight_decay 0.01, default betas and eps (the bundle must be compiled from
the example with its optimizer replaced accordingly).
"""
import numpy as np, json, struct, subprocess, sys
M, bundle, work = sys.argv[1:4]
kind = sys.argv[4] if len(sys.argv) > 4 else 'sgd'
rng=np.random.default_rng(0)
P={'fc1.weight':rng.standard_normal((64,128))*0.1,'fc1.bias':rng.standard_normal(128)*0.1,
   'fc2.weight':rng.standard_normal((128,10))*0.1,'fc2.bias':rng.standard_normal(10)*0.1}
P={k:v.astype(np.float32) for k,v in P.items()}
if kind == 'sgd':
    V={k+'.momentum_buffer':np.zeros_like(v) for k,v in P.items()}
else:
    V={k+s:np.zeros_like(v) for k,v in P.items() for s in ('.exp_avg','.exp_avg_sq')}
V['optimizer.step']=np.zeros((),np.int64)
def save(path, T):
    hdr={};off=0;blob=b''
    for k in sorted(T):
        b=np.ascontiguousarray(T[k]).tobytes(); hdr[k]={'dtype':'I64' if T[k].dtype==np.int64 else 'F32','shape':list(T[k].shape),'data_offsets':[off,off+len(b)]}; off+=len(b); blob+=b
    h=json.dumps(hdr).encode(); h+=b' '*((8-len(h)%8)%8)
    open(path,'wb').write(struct.pack('<Q',len(h))+h+blob)
def load(path):
    d=open(path,'rb').read(); n=struct.unpack('<Q',d[:8])[0]; hdr=json.loads(d[8:8+n]); base=8+n
    return {k:np.frombuffer(d[base+v['data_offsets'][0]:base+v['data_offsets'][1]],np.int64 if v['dtype']=='I64' else np.float32).reshape(v['shape']) for k,v in hdr.items() if k!='__metadata__'}
x=rng.random((64,64)).astype(np.float32); y=rng.integers(0,10,64).astype(np.int32)
np.save(work + '/sx.npy',x); np.save(work + '/sy.npy',y)
# reference
p={k:v.astype(np.float64) for k,v in P.items()}; v={k:np.zeros_like(a) for k,a in p.items()}
m1={k:np.zeros_like(a) for k,a in p.items()}; t=[0]
def step():
    z1=x@p['fc1.weight']+p['fc1.bias']; h=np.maximum(z1,0); lg=h@p['fc2.weight']+p['fc2.bias']
    m=lg.max(1,keepdims=True); e=np.exp(lg-m); sm=e/e.sum(1,keepdims=True)
    loss=(np.log(e.sum(1))+m[:,0]-lg[np.arange(64),y]).mean()
    d=sm.copy(); d[np.arange(64),y]-=1; d/=64
    g={'fc2.weight':h.T@d,'fc2.bias':d.sum(0)}; dh=d@p['fc2.weight'].T*(z1>0)
    g['fc1.weight']=x.T@dh; g['fc1.bias']=dh.sum(0)
    if kind == 'sgd':
        for k in p: v[k]=0.9*v[k]+g[k]; p[k]=p[k]-0.1*v[k]
    else:
        t[0]+=1; lr, wd, b1, b2, eps = 0.01, 0.01, 0.9, 0.999, 1e-8
        for k in p:
            m1[k]=b1*m1[k]+(1-b1)*g[k]; v[k]=b2*v[k]+(1-b2)*g[k]**2
            p[k]=p[k]-lr*wd*p[k]
            p[k]=p[k]-lr*(m1[k]/(1-b1**t[0]))/(np.sqrt(v[k]/(1-b2**t[0]))+eps)
    return loss
save(work + '/sp.safetensors', {**P, **V})
losses=[]
for i in range(2):
    r=subprocess.run([M,'run',bundle,'--params',work + '/sp.safetensors','--save-params',work + '/sp.safetensors','-i','pixels=' + work + '/sx.npy','-i','labels=' + work + '/sy.npy','-o','loss=' + work + '/sl.npy'],capture_output=True,text=True)
    if r.returncode: print(r.stderr); sys.exit(1)
    ref=step(); got=float(np.load(work + '/sl.npy')); losses.append((got,ref))
out=load(work + '/sp.safetensors')
ok = True
for i, (got, ref) in enumerate(losses):
    print('step %d loss %.6f reference %.6f' % (i, got, ref))
    ok &= abs(got - ref) <= 1e-5 * abs(ref)
for k in sorted(p):
    err = np.abs(out[k] - p[k]).max() / max(np.abs(p[k]).max(), 1e-30)
    print('%s relative error after 2 steps %.1e' % (k, err))
    ok &= err < 1e-5
state = [(k + '.momentum_buffer', v[k]) for k in sorted(v)] if kind == 'sgd' else \
    [(k + suffix, ref[k]) for k in sorted(v) for suffix, ref in (('.exp_avg', m1), ('.exp_avg_sq', v))]
for name, want in state:
    err = np.abs(out[name] - want).max() / max(np.abs(want).max(), 1e-30)
    print('%s relative error %.1e' % (name, err))
    ok &= err < 1e-4
if kind != 'sgd':
    print('optimizer.step', int(out['optimizer.step']))
    ok &= int(out['optimizer.step']) == 2
# A mismatch fails the RUN line by itself (exit status 1), not only
# through FileCheck, whose CHECK: MATCH would also match MISMATCH.
print("MATCH" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
